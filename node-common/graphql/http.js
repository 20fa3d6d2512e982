// The HTTP side of POST /graphql as contract/README.md states it ("The GraphQL transport"), the
// same in every Node app and the same texts on the ASP.NET side: the response media type from
// Accept, the request checks in their order, and the bodies and statuses that carry their
// verdicts. The app's GraphQL server library executes what passes them; the app sends the bodies.
import { GraphQLError } from 'graphql';
import { MAX_BODY_BYTES } from '../config.js';
import { isUnreachable } from '../db.js';
import { Problem, UNREACHABLE_DETAIL } from '../problems.js';

const GRAPHQL_RESPONSE = 'application/graphql-response+json';
const JSON_TYPE = 'application/json';
const NOT_ACCEPTABLE = 'Accept must allow application/graphql-response+json or application/json';
const UNSUPPORTED_CONTENT_TYPE = 'Content-Type must be application/json';

// Header lists and parameters split at separators outside quoted strings (RFC 9110 §5.6).
function splitOutsideQuotes(text, separator) {
  const parts = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i];
    if (quoted && char === '\\') {
      current += char + (text[i + 1] ?? '');
      i += 1;
    } else if (char === '"') {
      quoted = !quoted;
      current += char;
    } else if (char === separator && !quoted) {
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  parts.push(current);
  return parts.map((part) => part.trim());
}

const QVALUE = /^(?:0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)$/;

// Each listed media range with its weight; a range whose q breaks RFC 9110's grammar is left out.
function mediaRanges(accept) {
  const ranges = [];
  for (const element of splitOutsideQuotes(accept, ',')) {
    const [type, ...parameters] = splitOutsideQuotes(element, ';');
    if (type === '') continue;
    const weight = parameters.find((parameter) => /^q=/i.test(parameter));
    const q = weight === undefined ? '1' : weight.slice(2);
    if (QVALUE.test(q)) ranges.push({ type: type.toLowerCase(), q: Number(q) });
  }
  return ranges;
}

const STANDS_FOR = new Map([
  [GRAPHQL_RESPONSE, GRAPHQL_RESPONSE],
  [JSON_TYPE, JSON_TYPE],
  ['application/*', JSON_TYPE],
  ['*/*', JSON_TYPE],
]);

// The response's media type, or null when neither is acceptable (406).
function responseMediaType(accept) {
  const ranges = mediaRanges(accept ?? '');
  if (ranges.every((range) => range.type === '*/*')) return JSON_TYPE;
  let chosen = null;
  let best = 0;
  for (const { type, q } of ranges) {
    const mediaType = STANDS_FOR.get(type);
    // Strictly better, or as good and application/graphql-response+json: it wins ties.
    if (mediaType && (q > best || (q === best && q > 0 && mediaType === GRAPHQL_RESPONSE))) {
      chosen = mediaType;
      best = q;
    }
  }
  return chosen;
}

// application/json, with no parameter but charset=utf-8 (case-insensitively).
function isJsonContentType(contentType) {
  if (contentType === undefined) return false;
  const [type, ...parameters] = splitOutsideQuotes(contentType, ';');
  return type.toLowerCase() === JSON_TYPE
    && parameters.every((parameter) => parameter === '' || /^charset=utf-8$/i.test(parameter));
}

// The raw body (`req`: Node's request, which no body parser of the framework has read), refused
// once it passes maxBytes. Content-Encoding is not undone: like Kestrel, the app reads the bytes
// as sent, and a compressed body is simply not JSON.
function readBody(req, maxBytes) {
  const tooLarge = () => new Problem(413, 'request entity too large');
  return new Promise((resolve, reject) => {
    if (Number(req.headers['content-length']) > maxBytes) {
      reject(tooLarge());
      return;
    }
    const chunks = [];
    let size = 0;
    const onData = (chunk) => {
      size += chunk.length;
      if (size <= maxBytes) {
        chunks.push(chunk);
        return;
      }
      // The rest is read and dropped, so that the connection can serve the next request.
      req.off('data', onData);
      req.resume();
      reject(tooLarge());
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

// Invalid UTF-8 is not JSON; a byte order mark is kept, and so is not JSON either (RFC 8259 §8.1).
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function parseJson(bytes) {
  try {
    return { value: JSON.parse(utf8.decode(bytes)) };
  } catch {
    return null;
  }
}

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);
const isObjectOrNull = (value) => value === null || isObject(value);
const rejected = (message) => ({ status: 400, message });

// The body's checks in the contract's order: { params } for the GraphQL server (unknown keys
// dropped), or the { status, message } of the first check it fails.
function checkRequestBody(bytes) {
  const parsed = parseJson(bytes);
  if (parsed === null) return rejected('the request body is not valid JSON');
  const body = parsed.value;
  if (!isObject(body)) return rejected('the request body must be a JSON object');
  const { query, variables = null, operationName = null, extensions = null } = body;
  if (typeof query !== 'string') return rejected('query must be a string');
  if (!isObjectOrNull(variables)) return rejected('variables must be an object or null');
  if (!(operationName === null || typeof operationName === 'string')) {
    return rejected('operationName must be a string or null');
  }
  if (!isObjectOrNull(extensions)) return rejected('extensions must be an object or null');
  return { params: { query, variables, operationName } };
}

// An error object in the contract's shape: message, then locations and path where they apply,
// never extensions.
export function errorObject(error) {
  const formatted = { message: error.message };
  if (error.locations !== undefined) {
    formatted.locations = error.locations.map(({ line, column }) => ({ line, column }));
  }
  if (error.path !== undefined) formatted.path = [...error.path];
  return formatted;
}

// {"errors":[…]}, {"errors":[…],"data":…} or {"data":…}: the text the app sends as the chosen
// media type.
function graphqlBody(errors, data) {
  const body = {};
  if (errors.length > 0) body.errors = errors;
  if (data !== undefined) body.data = data;
  return JSON.stringify(body);
}

// The transport's checks in the contract's order, before any GraphQL: Accept (406), Content-Type
// (415, `contentType` as the client sent it), the body's size (the 413 Problem, thrown for the
// error handler) and its content (400). { mediaType, params } to execute, or the { status,
// mediaType, body } of the first check the request fails.
export async function checkGraphqlRequest(accept, contentType, req) {
  const mediaType = responseMediaType(accept);
  if (mediaType === null) {
    return { status: 406, mediaType: JSON_TYPE, body: graphqlBody([{ message: NOT_ACCEPTABLE }]) };
  }
  if (!isJsonContentType(contentType)) {
    return { status: 415, mediaType, body: graphqlBody([{ message: UNSUPPORTED_CONTENT_TYPE }]) };
  }
  const checked = checkRequestBody(await readBody(req, MAX_BODY_BYTES));
  if (!checked.params) {
    return { status: checked.status, mediaType, body: graphqlBody([{ message: checked.message }]) };
  }
  return { mediaType, params: checked.params };
}

// The problem an execution's errors call for, or null. A cause that is not a GraphQLError is the
// database (503) or a bug (500, logged), never the client; otherwise the GraphQL body answers.
export function failureOf(errors) {
  const causes = errors.map((error) => error.originalError)
    .filter((cause) => cause != null && !(cause instanceof GraphQLError));
  if (causes.some(isUnreachable)) return new Problem(503, UNREACHABLE_DETAIL);
  if (causes.length === 0) return null;
  console.error(causes[0]);
  return new Problem(500, 'internal error');
}

// What an execution's { errors?, data? } (graphql-js's errors) calls for: { problem } (failureOf),
// or the { status, body } of the GraphQL answer: 200 when execution began (`data` present, even
// null), and without data (parse, validation, limit, operation or variable errors) 200 as
// application/json, 400 as the GraphQL type.
export function graphqlAnswer(mediaType, result) {
  const errors = result.errors ?? [];
  const problem = failureOf(errors);
  if (problem) return { problem };
  const status = result.data !== undefined || mediaType === JSON_TYPE ? 200 : 400;
  return { status, body: graphqlBody(errors.map(errorObject), result.data) };
}
