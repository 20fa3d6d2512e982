import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, failedStart, graphql, request, startStatementRelay, closedPort } from '../../node-common/test/helpers.js';

// The graphql-http variant must answer as the default (express-graphql) does: same status,
// Content-Type and bytes, and the same SQL; only the texts the contract leaves to the library may
// differ (an unknown or ambiguous operation, a subscription).
let relays;
let servers;
before(async () => {
  relays = [await startStatementRelay(), await startStatementRelay()];
  servers = [
    await startServer({ DB_PORT: String(relays[0].port) }),
    await startServer({ DB_PORT: String(relays[1].port), GRAPHQL_SERVER: 'graphql-http' }),
  ];
});
after(async () => {
  for (const server of servers ?? []) await server.stop();
  for (const relay of relays ?? []) await relay.close();
});

const GRAPHQL_TYPE = { Accept: 'application/graphql-response+json' };
const SAME = [
  ['a comment with its user', { query: '{ commentById(id: 1) { id body user { id name } } }' }],
  ['two aliases batch their users', { query: '{ a: commentsByLimit(limit: 5) { id user { name } } b: commentsByUserId(id: 7, limit: 3) { id user { email } } }' }],
  ['an argument error beside data', { query: '{ commentById(id: "abc") { id } ok: commentById(id: 2) { id } }' }],
  ['no such comment', { query: '{ commentById(id: 2000000) { id } }' }],
  ['a validation error', { query: '{ commentById(id: 1) { nope } }' }],
  ['a syntax error', { query: '{ commentById(id: 1) {' }],
  ['the depth limit', { query: '{ __type(name: "Comment") { fields { type { ofType { ofType { name } } } } } }' }],
  ['the comment limit through a variable', { query: 'query($n: Int!) { a: commentsByLimit(limit: $n) { id } b: commentsByLimit(limit: $n) { id } }', variables: { n: 600 } }],
  ['a variable that fails to coerce', { query: 'query($n: Int!) { commentsByLimit(limit: $n) { id } }', variables: { n: 'x' } }],
  ['a mutation', { query: 'mutation { commentById(id: 1) { id } }' }],
  ['operationName picks one', { query: 'query A { a: __typename } query B { b: __typename }', operationName: 'B' }],
  ['variables null', { query: '{ __typename }', variables: null, operationName: null, extensions: null }],
  ['query not a string', { query: 1 }],
  ['not JSON', '{"query":'],
];

for (const [name, body] of SAME) {
  for (const headers of [{}, GRAPHQL_TYPE]) {
    test(`graphql-http answers as express-graphql: ${name} (${headers.Accept ?? 'no Accept'})`, async () => {
      relays.forEach((relay) => relay.clear());
      const [mine, theirs] = await Promise.all(servers.map((server) => graphql(server, body, headers)));
      assert.equal(theirs.status, mine.status);
      assert.equal(theirs.headers.get('content-type'), mine.headers.get('content-type'));
      assert.equal(theirs.text, mine.text);
      assert.deepEqual(relays[1].statements(), relays[0].statements());
    });
  }
}

for (const [name, body] of [
  ['an unknown operation', { query: 'query A { __typename }', operationName: 'B' }],
  ['two operations without a name', { query: 'query A { __typename } query B { __typename }' }],
  ['a subscription', { query: 'subscription { commentById(id: 1) { id } }' }],
]) {
  test(`graphql-http: ${name} is a request error in its own words`, async () => {
    for (const [headers, status] of [[{}, 200], [GRAPHQL_TYPE, 400]]) {
      const response = await graphql(servers[1], body, headers);
      assert.equal(response.status, status);
      assert.deepEqual(Object.keys(JSON.parse(response.text)), ['errors']);
    }
  });
}

test('graphql-http: the transport checks before it are the same (406, 415, 405)', async () => {
  for (const server of servers) {
    const notAcceptable = await graphql(server, { query: '{ __typename }' }, { Accept: 'text/html' });
    assert.equal(notAcceptable.status, 406);
    const wrongType = await graphql(server, { query: '{ __typename }' }, { 'Content-Type': 'text/plain' });
    assert.equal(wrongType.status, 415);
    const get = await request(server, { path: '/graphql' });
    assert.equal(get.status, 405);
    assert.equal(get.headers.allow, 'POST');
  }
});

test('graphql-http: an unreachable database is a 503 problem', async () => {
  const server = await startServer({ DB_PORT: String(await closedPort()), GRAPHQL_SERVER: 'graphql-http' });
  try {
    const response = await graphql(server, { query: '{ commentById(id: 1) { id } }' });
    assert.equal(response.status, 503);
    assert.equal(response.headers.get('content-type'), 'application/problem+json; charset=utf-8');
  } finally {
    await server.stop();
  }
});

test('GRAPHQL_SERVER names a library the app knows, or start-up stops with one line', () => {
  const result = failedStart({ GRAPHQL_SERVER: 'apollo' });
  assert.equal(result.status, 1);
  assert.equal(result.stderr, "express-api: GRAPHQL_SERVER must be one of express-graphql, graphql-http, not 'apollo'\n");
});
