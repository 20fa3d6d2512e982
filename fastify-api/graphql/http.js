// The HTTP side of POST /graphql as contract/README.md states it ("The GraphQL transport"), the
// same texts as express-api and the ASP.NET side: the response media type from Accept, the request
// checks in their order, and the bodies that carry their verdicts. mercurius (graphql/execute.js)
// executes what passes them.
import { GraphQLError } from 'graphql';
import { isUnreachable } from '../db.js';
import { Problem, UNREACHABLE_DETAIL } from '../problems.js';

export const GRAPHQL_RESPONSE = 'application/graphql-response+json';
export const JSON_TYPE = 'application/json';
export const NOT_ACCEPTABLE = 'Accept must allow application/graphql-response+json or application/json';
export const UNSUPPORTED_CONTENT_TYPE = 'Content-Type must be application/json';

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
export function responseMediaType(accept) {
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
export function isJsonContentType(contentType) {
  if (contentType === undefined) return false;
  const [type, ...parameters] = splitOutsideQuotes(contentType, ';');
  return type.toLowerCase() === JSON_TYPE
    && parameters.every((parameter) => parameter === '' || /^charset=utf-8$/i.test(parameter));
}

// The raw body (`req`: Node's request; app.js keeps Fastify's parsers off it), refused once it
// passes maxBytes. Content-Encoding is not undone: like Kestrel, the app reads the bytes as sent,
// and a compressed body is simply not JSON.
export function readBody(req, maxBytes) {
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

// The body's checks in the contract's order: { params } for mercurius (unknown keys dropped), or
// the { status, message } of the first check it fails.
export function checkRequestBody(bytes) {
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

// {"errors":[…]}, {"errors":[…],"data":…} or {"data":…}, as the chosen media type with its charset.
export function sendGraphQL(reply, status, mediaType, errors, data) {
  const body = {};
  if (errors.length > 0) body.errors = errors;
  if (data !== undefined) body.data = data;
  return reply.code(status).type(`${mediaType}; charset=utf-8`).send(JSON.stringify(body));
}

export function sendRejection(reply, status, mediaType, message) {
  return sendGraphQL(reply, status, mediaType, [{ message }]);
}

// The problem an execution's errors call for, or null. A cause that is not a GraphQLError is the
// database (503) or a bug (500, logged), never the client; otherwise the GraphQL body answers.
export function failureOf(errors) {
  const causes = errors.map((error) => error.originalError)
    .filter((cause) => cause != null && !(cause instanceof GraphQLError));
  if (causes.some(isUnreachable)) return { status: 503, detail: UNREACHABLE_DETAIL };
  if (causes.length === 0) return null;
  console.error(causes[0]);
  return { status: 500, detail: 'internal error' };
}
