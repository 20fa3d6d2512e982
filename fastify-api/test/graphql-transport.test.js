// POST /graphql as contract/README.md's "The GraphQL transport" states it: media type from Accept,
// the request checks in their order, the status table under both media types, 405 and 413.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, request, problem } from './helpers.js';

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
async function post(body, headers = { 'Content-Type': JSON_TYPE }, path = '/graphql') {
  const response = await request(server, {
    method: 'POST',
    path,
    headers,
    body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
  });
  return { status: response.status, type: response.headers['content-type'], text: response.body.toString() };
}

const withAccept = (accept) => ({ 'Content-Type': JSON_TYPE, Accept: accept });

test('Accept chooses the media type by q, GraphQL type on a tie; nothing acceptable is a 406', async () => {
  const cases = [
    [undefined, JSON_TYPE],
    ['', JSON_TYPE],
    ['*/*', JSON_TYPE],
    // "lists nothing but */*" comes first, whatever its q.
    ['*/*;q=0', JSON_TYPE],
    [JSON_TYPE, JSON_TYPE],
    [GQL, GQL],
    [`${GQL}, ${JSON_TYPE}`, GQL],
    [`${JSON_TYPE}, ${GQL}`, GQL],
    [`${JSON_TYPE};q=0.9, ${GQL};q=0.8`, JSON_TYPE],
    [`${GQL};q=0.5, */*`, JSON_TYPE],
    [`${GQL};q=0.5, application/*;q=0.6`, JSON_TYPE],
    [`${GQL};q=0.5, application/*;q=0.5`, GQL],
    [`${GQL};q=0.5, ${JSON_TYPE};q=0.500`, GQL],
    ['APPLICATION/GRAPHQL-RESPONSE+JSON', GQL],
    [`text/html, ${GQL};q=0.1`, GQL],
    [`${GQL};Q=0.2, ${JSON_TYPE};q=0.1`, GQL],
    [`${JSON_TYPE}; charset=utf-8`, JSON_TYPE],
    [`${GQL};q=0, ${JSON_TYPE};q=0.1`, JSON_TYPE],
    [`${GQL};q=0.001, ${JSON_TYPE};q=0`, GQL],
    [`${JSON_TYPE};q=0`, null],
    [`${GQL};q=0, ${JSON_TYPE};q=0`, null],
    ['text/html', null],
    ['__proto__, constructor', null],
    ['text/*', null],
    ['application/xml, text/html;q=0.9', null],
    [`text/html, */*;q=0`, null],
  ];
  for (const [accept, expected] of cases) {
    const headers = accept === undefined ? { 'Content-Type': JSON_TYPE } : withAccept(accept);
    const response = await post(TYPENAME, headers);
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
const NOT_OBJECT = 'the request body must be a JSON object';
const QUERY_RULE = 'query must be a string';
const VARIABLES_RULE = 'variables must be an object or null';
const OPERATION_NAME_RULE = 'operationName must be a string or null';
const EXTENSIONS_RULE = 'extensions must be an object or null';

// [Content-Type or undefined for none, body, status, message]
const REQUEST_CHECKS = [
  [undefined, TYPENAME, 415, UNSUPPORTED],
  ['', TYPENAME, 415, UNSUPPORTED],
  ['text/plain', TYPENAME, 415, UNSUPPORTED],
  ['application/graphql', '{ __typename }', 415, UNSUPPORTED],
  ['application/x-www-form-urlencoded', 'query=%7B__typename%7D', 415, UNSUPPORTED],
  ['application/jsonx', TYPENAME, 415, UNSUPPORTED],
  [GQL, TYPENAME, 415, UNSUPPORTED],
  ['application/json; charset=latin1', TYPENAME, 415, UNSUPPORTED],
  ['application/json; charset=utf-16', TYPENAME, 415, UNSUPPORTED],
  ['application/json; charset=utf8', TYPENAME, 415, UNSUPPORTED],
  ['application/json; charset="utf-8"', TYPENAME, 415, UNSUPPORTED],
  ['application/json; foo=bar', TYPENAME, 415, UNSUPPORTED],
  ['application/json; charset=utf-8; foo=bar', TYPENAME, 415, UNSUPPORTED],
  // The Content-Type is checked before the body is read.
  ['text/plain', '[', 415, UNSUPPORTED],
  [JSON_TYPE, '', 400, NOT_JSON],
  [JSON_TYPE, '{', 400, NOT_JSON],
  [JSON_TYPE, 'query', 400, NOT_JSON],
  [JSON_TYPE, "{'query': '{ __typename }'}", 400, NOT_JSON],
  [JSON_TYPE, Buffer.from([0x7b, 0x22, 0x71, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]), 400, NOT_JSON],
  [JSON_TYPE, `\uFEFF${JSON.stringify(TYPENAME)}`, 400, NOT_JSON],
  [JSON_TYPE, '[]', 400, NOT_OBJECT],
  [JSON_TYPE, '[{"query":"{ __typename }"}]', 400, NOT_OBJECT],
  [JSON_TYPE, '"{ __typename }"', 400, NOT_OBJECT],
  [JSON_TYPE, '5', 400, NOT_OBJECT],
  [JSON_TYPE, 'true', 400, NOT_OBJECT],
  [JSON_TYPE, 'null', 400, NOT_OBJECT],
  [JSON_TYPE, '{}', 400, QUERY_RULE],
  [JSON_TYPE, { variables: {} }, 400, QUERY_RULE],
  [JSON_TYPE, { query: 5 }, 400, QUERY_RULE],
  [JSON_TYPE, { query: null }, 400, QUERY_RULE],
  [JSON_TYPE, { query: ['{ __typename }'] }, 400, QUERY_RULE],
  [JSON_TYPE, { ...TYPENAME, variables: '{}' }, 400, VARIABLES_RULE],
  [JSON_TYPE, { ...TYPENAME, variables: [] }, 400, VARIABLES_RULE],
  [JSON_TYPE, { ...TYPENAME, variables: 5 }, 400, VARIABLES_RULE],
  [JSON_TYPE, { ...TYPENAME, operationName: 5 }, 400, OPERATION_NAME_RULE],
  [JSON_TYPE, { ...TYPENAME, operationName: {} }, 400, OPERATION_NAME_RULE],
  [JSON_TYPE, { ...TYPENAME, operationName: ['A'] }, 400, OPERATION_NAME_RULE],
  [JSON_TYPE, { ...TYPENAME, extensions: 'x' }, 400, EXTENSIONS_RULE],
  [JSON_TYPE, { ...TYPENAME, extensions: [] }, 400, EXTENSIONS_RULE],
  [JSON_TYPE, { ...TYPENAME, extensions: false }, 400, EXTENSIONS_RULE],
  // In the contract's order, the first broken rule is the one reported.
  [JSON_TYPE, { query: 5, variables: 'x', operationName: 5, extensions: 5 }, 400, QUERY_RULE],
  [JSON_TYPE, { ...TYPENAME, variables: 'x', operationName: 5, extensions: 5 }, 400, VARIABLES_RULE],
  [JSON_TYPE, { ...TYPENAME, operationName: 5, extensions: 5 }, 400, OPERATION_NAME_RULE],
];

for (const mediaType of [JSON_TYPE, GQL]) {
  test(`request checks: their status and message, as ${mediaType}`, async () => {
    for (const [contentType, body, status, message] of REQUEST_CHECKS) {
      const headers = { Accept: mediaType };
      if (contentType !== undefined) headers['Content-Type'] = contentType;
      const response = await post(body, headers);
      const label = `${contentType} ${body}`;
      assert.equal(response.status, status, label);
      assert.equal(response.type, `${mediaType}; charset=utf-8`, label);
      assert.equal(response.text, errors(message), label);
    }
  });
}

test('what passes the checks: charset=utf-8 in any case, nulls, extensions, unknown keys', async () => {
  const accepted = [
    [JSON_TYPE, TYPENAME],
    ['application/json;charset=UTF-8', TYPENAME],
    ['Application/JSON ; Charset=utf-8', TYPENAME],
    [JSON_TYPE, { ...TYPENAME, variables: null, operationName: null, extensions: null }],
    [JSON_TYPE, { ...TYPENAME, variables: {}, extensions: { persistedQuery: { version: 1 } } }],
    [JSON_TYPE, { ...TYPENAME, raw: true, unknown: [1, 2] }],
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

const LIMIT_RULE = 'limit must be an integer from 1 to 1000';

// Well-formed requests that never execute: [name, body, the exact error bytes or null].
// Parse and validation texts are graphql-js's own (graphql 16's here; mercurius needs it), the
// limits' are the contract's.
const NEVER_EXECUTED = [
  ['a syntax error', { query: '{ commentById(id: 1) { id }' },
    '{"errors":[{"message":"Syntax Error: Expected Name, found <EOF>.","locations":[{"line":1,"column":28}]}]}'],
  // mercurius alone would take a query text that is JSON for a parsed document (graphql/execute.js).
  ['a query that is JSON, not GraphQL', { query: '1' },
    '{"errors":[{"message":"Syntax Error: Unexpected Int \\"1\\".","locations":[{"line":1,"column":1}]}]}'],
  ['a validation error', { query: '{ commentById(id: 1) { id title } }' },
    '{"errors":[{"message":"Cannot query field \\"title\\" on type \\"Comment\\".","locations":[{"line":1,"column":27}]}]}'],
  ['a variable that does not coerce', { query: 'query($n: Int!) { commentsByLimit(limit: $n) { id } }', variables: { n: '5' } },
    '{"errors":[{"message":"Variable \\"$n\\" got invalid value \\"5\\"; Int cannot represent non-integer value: \\"5\\"","locations":[{"line":1,"column":7}]}]}'],
  ['a missing variable', { query: 'query($n: Int!) { commentsByLimit(limit: $n) { id } }' },
    '{"errors":[{"message":"Variable \\"$n\\" of required type \\"Int!\\" was not provided.","locations":[{"line":1,"column":7}]}]}'],
  ['the depth limit', { query: '{ __schema { types { fields { type { ofType { name } } } } } }' },
    errors('query is nested 6 levels deep; the maximum is 5').replace('"}]}', '","locations":[{"line":1,"column":1}]}]}')],
  ['the fields limit', { query: `{ ${Array.from({ length: 201 }, (_, i) => `a${i}: __typename`).join(' ')} }` },
    errors('query selects 201 fields; the maximum is 200').replace('"}]}', '","locations":[{"line":1,"column":1}]}]}')],
  ['the comments limit', { query: '{ a: commentsByLimit(limit: 1000) { id } b: commentById(id: 1) { id } }' },
    errors('query asks for 1001 comments; the maximum is 1000').replace('"}]}', '","locations":[{"line":1,"column":1}]}]}')],
  ['an unknown operation', { query: 'query A { __typename }', operationName: 'B' },
    errors('Unknown operation named "B".')],
  ['two operations and no operationName', { query: 'query A { __typename } query B { __typename }' },
    errors('Must provide operation name if query contains multiple operations.')],
  ['a mutation', { query: 'mutation { __typename }' },
    '{"errors":[{"message":"Schema is not configured to execute mutation operation.","locations":[{"line":1,"column":1}]}]}'],
  ['a subscription', { query: 'subscription { __typename }' },
    '{"errors":[{"message":"Schema is not configured to execute subscription operation.","locations":[{"line":1,"column":1}]}]}'],
];

for (const [name, body, expected] of NEVER_EXECUTED) {
  test(`no data (${name}): 200 as application/json, 400 as application/graphql-response+json`, async () => {
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

test('executed requests are 200 under both media types, errors first, data even when null', async () => {
  const cases = [
    [{ query: '{ commentById(id: 2) { id } }' }, '{"data":{"commentById":{"id":"2"}}}'],
    [{ query: '{ commentsByLimit(limit: 0) { id } }' },
      `{"errors":[{"message":"${LIMIT_RULE}","locations":[{"line":1,"column":3}],"path":["commentsByLimit"]}],"data":null}`],
    [{ query: '{ a: commentById(id: 1) { id } b: commentById(id: "x") { id } }' },
      '{"errors":[{"message":"id must be an integer from 1 to 2147483647","locations":[{"line":1,"column":32}],"path":["b"]}],'
      + '"data":{"a":{"id":"1"},"b":null}}'],
  ];
  for (const mediaType of [JSON_TYPE, GQL]) {
    for (const [body, expected] of cases) {
      const response = await post(body, withAccept(mediaType));
      assert.equal(response.status, 200, response.text);
      assert.equal(response.type, `${mediaType}; charset=utf-8`);
      assert.equal(response.text, expected);
    }
  }
});

test('a body over 1,000,000 bytes is a 413 problem; 1,000,000 bytes is read', async () => {
  const padded = (size) => {
    const head = '{"query":"{ __typename }","padding":"';
    return `${head}${'a'.repeat(size - head.length - 2)}"}`;
  };
  const within = await post(padded(1_000_000), withAccept(GQL));
  assert.equal(within.status, 200);
  assert.equal(within.text, TYPENAME_DATA);
  const tooLarge = JSON.stringify({ type: 'about:blank', title: 'Payload Too Large', status: 413,
    detail: 'request entity too large' });
  // Declared by Content-Length, and found while reading a chunked body.
  for (const headers of [withAccept(GQL), { ...withAccept(GQL), 'Transfer-Encoding': 'chunked' }]) {
    const over = await post(padded(1_000_001), headers);
    assert.equal(over.status, 413);
    assert.equal(over.type, 'application/problem+json; charset=utf-8');
    assert.equal(over.text, tooLarge);
  }
});

test('every method but POST, HEAD and OPTIONS included, is a 405 problem with Allow: POST', async () => {
  // QUERY and PROPFIND: methods Fastify would refuse on its own (400 without a Content-Type, 404).
  for (const method of ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'QUERY', 'PROPFIND']) {
    const response = await request(server, { method, path: '/graphql', headers: { Accept: GQL } });
    assert.equal(response.status, 405, method);
    assert.equal(response.headers.allow, 'POST', method);
    assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8', method);
    const expected = problem(405, 'method not allowed');
    assert.equal(response.headers['content-length'], String(Buffer.byteLength(expected)), method);
    assert.equal(response.body.toString(), method === 'HEAD' ? '' : expected, method);
  }
});
