// POST /graphql as contract/README.md's "The GraphQL transport" states it, where
// contract/bad_input.json leaves off: the rarer Accept and Content-Type values, bodies that are
// not UTF-8, the order of the checks, the body limit, every other method, and the exact words of
// graphql-js for requests that never execute (bad_input.json checks only their keys).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startServer, request, problem, installedVersion } from './helpers.js';

let server;
before(async () => { server = await startServer(); });
after(async () => { await server?.stop(); });

const GQL = 'application/graphql-response+json';
const JSON_TYPE = 'application/json';
const TYPENAME = { query: '{ __typename }' };
const TYPENAME_DATA = '{"data":{"__typename":"Query"}}';
const NOT_ACCEPTABLE = '{"errors":[{"message":"Accept must allow application/graphql-response+json or application/json"}]}';
const errors = (message) => JSON.stringify({ errors: [{ message }] });

// headers: what to send, exactly (no Accept or Content-Type unless given).
async function post(body, headers = { 'Content-Type': JSON_TYPE }, path = '/graphql', agent = undefined) {
  const response = await request(server, {
    method: 'POST',
    path,
    headers,
    body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
    agent,
  });
  return { status: response.status, headers: response.headers, type: response.headers['content-type'],
    text: response.body.toString(), socket: response.socket };
}

const withAccept = (accept) => ({ 'Content-Type': JSON_TYPE, Accept: accept });

test('Accept chooses the media type by q, GraphQL type on a tie; nothing acceptable is a 406', async () => {
  const cases = [
    ['', JSON_TYPE],
    // "lists nothing but */*" comes first, whatever its q.
    ['*/*;q=0', JSON_TYPE],
    [`${GQL};q=0.5, application/*;q=0.5`, GQL],
    [`${GQL};q=0.5, ${JSON_TYPE};q=0.500`, GQL],
    ['APPLICATION/GRAPHQL-RESPONSE+JSON', GQL],
    [`text/html, ${GQL};q=0.1`, GQL],
    [`${GQL};Q=0.2, ${JSON_TYPE};q=0.1`, GQL],
    [`${JSON_TYPE}; charset=utf-8`, JSON_TYPE],
    [`${GQL};q=0.001, ${JSON_TYPE};q=0`, GQL],
    [`${GQL};q=0, ${JSON_TYPE};q=0`, null],
    ['__proto__, constructor', null],
    ['text/*', null],
    ['application/xml, text/html;q=0.9', null],
    ['text/html, */*;q=0', null],
  ];
  for (const [accept, expected] of cases) {
    const response = await post(TYPENAME, withAccept(accept));
    if (expected === null) {
      assert.equal(response.status, 406, `Accept: ${accept}`);
      assert.equal(response.type, 'application/json; charset=utf-8', `Accept: ${accept}`);
      assert.equal(response.text, NOT_ACCEPTABLE, `Accept: ${accept}`);
    } else {
      assert.equal(response.status, 200, `Accept: ${accept}`);
      assert.equal(response.type, `${expected}; charset=utf-8`, `Accept: ${accept}`);
      assert.equal(response.text, TYPENAME_DATA, `Accept: ${accept}`);
    }
  }
});

test('a 406 comes before the request checks', async () => {
  const response = await post('[', { 'Content-Type': 'text/plain', Accept: 'text/html' });
  assert.equal(response.status, 406);
  assert.equal(response.text, NOT_ACCEPTABLE);
});

const UNSUPPORTED = 'Content-Type must be application/json';
const NOT_JSON = 'the request body is not valid JSON';

// [Content-Type, body, status, message]
const REQUEST_CHECKS = [
  ['', TYPENAME, 415, UNSUPPORTED],
  ['application/x-www-form-urlencoded', 'query=%7B__typename%7D', 415, UNSUPPORTED],
  ['application/jsonx', TYPENAME, 415, UNSUPPORTED],
  [GQL, TYPENAME, 415, UNSUPPORTED],
  ['application/json; charset=utf8', TYPENAME, 415, UNSUPPORTED],
  ['application/json; charset="utf-8"', TYPENAME, 415, UNSUPPORTED],
  ['application/json; charset=utf-8; foo=bar', TYPENAME, 415, UNSUPPORTED],
  // Not UTF-8: a byte that cannot start a character, and a byte order mark (RFC 8259 §8.1).
  [JSON_TYPE, Buffer.from([0x7b, 0x22, 0x71, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]), 400, NOT_JSON],
  [JSON_TYPE, `\uFEFF${JSON.stringify(TYPENAME)}`, 400, NOT_JSON],
];

for (const mediaType of [JSON_TYPE, GQL]) {
  test(`request checks: their status and message, as ${mediaType}`, async () => {
    for (const [contentType, body, status, message] of REQUEST_CHECKS) {
      const response = await post(body, { Accept: mediaType, 'Content-Type': contentType });
      const label = `${contentType} ${body}`;
      assert.equal(response.status, status, label);
      assert.equal(response.type, `${mediaType}; charset=utf-8`, label);
      assert.equal(response.text, errors(message), label);
    }
  });
}

test('what passes the checks: charset=utf-8 in any case and spacing, extensions, white space', async () => {
  const accepted = [
    ['Application/JSON ; Charset=utf-8', TYPENAME],
    [JSON_TYPE, { ...TYPENAME, variables: {}, extensions: { persistedQuery: { version: 1 } } }],
    [JSON_TYPE, ` \n${JSON.stringify(TYPENAME)}\n `],
  ];
  for (const [contentType, body] of accepted) {
    const response = await post(body, { 'Content-Type': contentType });
    assert.equal(response.status, 200, `${contentType} ${JSON.stringify(body)}`);
    assert.equal(response.text, TYPENAME_DATA);
  }
});

test('the request is read from the body alone, not the URL', async () => {
  const response = await post(TYPENAME, { 'Content-Type': JSON_TYPE },
    '/graphql?query=%7BcommentById(id%3A1)%7Bid%7D%7D&operationName=X');
  assert.equal(response.status, 200);
  assert.equal(response.text, TYPENAME_DATA);
});

// graphql 15 (express-graphql's) and 16 (mercurius') word an operation the schema has no root
// type for differently; every other text here is the same in both.
const GRAPHQL_MAJOR = Number(installedVersion('graphql').split('.')[0]);
const noRootType = (operation) => (GRAPHQL_MAJOR === 15
  ? `Schema is not configured for ${operation}s.`
  : `Schema is not configured to execute ${operation} operation.`);
const located = (message, line, column) => JSON.stringify({ errors: [{ message, locations: [{ line, column }] }] });

// Well-formed requests that never execute, in graphql-js's own words: [name, body, exact bytes].
const NEVER_EXECUTED = [
  ['a syntax error', { query: '{ commentById(id: 1) { id }' },
    located('Syntax Error: Expected Name, found <EOF>.', 1, 28)],
  // mercurius alone would take a query text that is JSON for a document already parsed.
  ['a query that is JSON, not GraphQL', { query: '1' }, located('Syntax Error: Unexpected Int "1".', 1, 1)],
  ['a validation error', { query: '{ commentById(id: 1) { id title } }' },
    located('Cannot query field "title" on type "Comment".', 1, 27)],
  ['a variable that does not coerce', { query: 'query($n: Int!) { commentsByLimit(limit: $n) { id } }', variables: { n: '5' } },
    located('Variable "$n" got invalid value "5"; Int cannot represent non-integer value: "5"', 1, 7)],
  ['a missing variable', { query: 'query($n: Int!) { commentsByLimit(limit: $n) { id } }' },
    located('Variable "$n" of required type "Int!" was not provided.', 1, 7)],
  ['an unknown operation', { query: 'query A { __typename }', operationName: 'B' },
    errors('Unknown operation named "B".')],
  ['two operations and no operationName', { query: 'query A { __typename } query B { __typename }' },
    errors('Must provide operation name if query contains multiple operations.')],
  ['a mutation', { query: 'mutation { __typename }' }, located(noRootType('mutation'), 1, 1)],
  ['a subscription', { query: 'subscription { __typename }' }, located(noRootType('subscription'), 1, 1)],
];

for (const [name, body, expected] of NEVER_EXECUTED) {
  test(`no data (${name}): graphql-js's words, 200 as application/json, 400 as the GraphQL type`, async () => {
    const asJson = await post(body, withAccept(JSON_TYPE));
    assert.equal(asJson.status, 200, asJson.text);
    assert.equal(asJson.type, 'application/json; charset=utf-8');
    assert.equal(asJson.text, expected);
    const asGraphQL = await post(body, withAccept(GQL));
    assert.equal(asGraphQL.status, 400, asGraphQL.text);
    assert.equal(asGraphQL.type, `${GQL}; charset=utf-8`);
    assert.equal(asGraphQL.text, expected);
  });
}

const padded = (size) => {
  const head = '{"query":"{ __typename }","padding":"';
  return `${head}${'a'.repeat(size - head.length - 2)}"}`;
};

test('a body over 1,000,000 bytes is a 413 problem, framed by Content-Length; 1,000,000 bytes is read', async () => {
  const within = await post(padded(1_000_000), withAccept(GQL));
  assert.equal(within.status, 200);
  assert.equal(within.text, TYPENAME_DATA);
  const tooLarge = problem(413, 'request entity too large');
  // Declared by Content-Length, and found while reading a chunked body.
  for (const headers of [withAccept(GQL), { ...withAccept(GQL), 'Transfer-Encoding': 'chunked' }]) {
    const over = await post(padded(1_000_001), headers);
    assert.equal(over.status, 413);
    assert.equal(over.type, 'application/problem+json; charset=utf-8');
    assert.equal(over.text, tooLarge);
    assert.equal(over.headers['content-length'], String(Buffer.byteLength(tooLarge)));
    assert.equal(over.headers['transfer-encoding'], undefined);
  }
});

test('a connection carries on after a 413', async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const sockets = new Set();
    for (const body of [padded(1_000_001), JSON.stringify(TYPENAME)]) {
      const response = await post(body, withAccept(JSON_TYPE), '/graphql', agent);
      sockets.add(response.socket);
      assert.equal(response.headers.connection, 'keep-alive');
    }
    assert.equal(sockets.size, 1);
  } finally {
    agent.destroy();
  }
});

// GET, HEAD, PUT, PATCH and DELETE are contract/bad_input.json's rows.
test('OPTIONS, QUERY and PROPFIND on /graphql are 405 problems with Allow: POST', async () => {
  for (const method of ['OPTIONS', 'QUERY', 'PROPFIND']) {
    const response = await request(server, { method, path: '/graphql', headers: { Accept: GQL } });
    assert.equal(response.status, 405, method);
    assert.equal(response.headers.allow, 'POST', method);
    assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8', method);
    assert.equal(response.body.toString(), problem(405, 'method not allowed'), method);
  }
});
