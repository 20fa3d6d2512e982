// contract/README.md, "Framing": every response has Content-Length and no Transfer-Encoding, the
// same few header names; HEAD on REST paths and /healthz answers what GET would, without a body.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startServer, request, closedPort, problem } from './helpers.js';

let server;
before(async () => { server = await startServer(); });
after(async () => { await server?.stop(); });

const JSON_HEADERS = { 'Content-Type': 'application/json' };
const graphqlBody = (query) => JSON.stringify({ query });

// Content-Length says how long the body is, nothing is chunked, no other header names appear.
function assertFramed(response, label, { method = 'GET', expectedLength } = {}) {
  assert.equal(response.headers['transfer-encoding'], undefined, label);
  const length = response.headers['content-length'];
  assert.match(length ?? '', /^[0-9]+$/, `${label}: Content-Length`);
  assert.equal(Number(length), method === 'HEAD' ? expectedLength : response.body.length, label);
  const names = Object.keys(response.headers).sort();
  const expected = ['connection', 'content-length', 'content-type', 'date'];
  if (response.headers.connection === 'keep-alive') expected.push('keep-alive');
  if (response.status === 405) expected.push('allow');
  assert.deepEqual(names, expected.sort(), label);
}

test('every kind of response is framed by Content-Length', async () => {
  const requests = [
    { path: '/rest/comment/1' },
    { path: '/rest/comments/1000' },
    { path: '/rest/user/3/comments/1000' },
    { path: '/rest/comment/abc' },
    { path: '/rest/comment/%zz' },
    { path: '/rest/comment/200001' },
    { path: '/nope' },
    { path: '/healthz' },
    { method: 'POST', path: '/rest/comment/1' },
    { method: 'GET', path: '/graphql' },
    { method: 'POST', path: '/graphql', headers: JSON_HEADERS,
      body: graphqlBody('{ commentsByLimit(limit: 1000) { id body user { name email } } }') },
    { method: 'POST', path: '/graphql', headers: JSON_HEADERS, body: graphqlBody('{ commentsByLimit(limit: 0) { id } }') },
    { method: 'POST', path: '/graphql', headers: { ...JSON_HEADERS, Accept: 'application/graphql-response+json' },
      body: graphqlBody('{ nope }') },
    { method: 'POST', path: '/graphql', headers: { ...JSON_HEADERS, Accept: 'text/html' }, body: '{}' },
    { method: 'POST', path: '/graphql', headers: { 'Content-Type': 'text/plain' }, body: '{}' },
    { method: 'POST', path: '/graphql', headers: JSON_HEADERS, body: '[' },
    { method: 'POST', path: '/graphql', headers: JSON_HEADERS, body: 'x'.repeat(1_000_001) },
  ];
  for (const init of requests) {
    const response = await request(server, init);
    assertFramed(response, `${init.method ?? 'GET'} ${init.path} → ${response.status}`);
  }
});

test('a connection carries on after a 413', async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const sockets = new Set();
    for (const body of ['x'.repeat(1_000_001), graphqlBody('{ __typename }')]) {
      const response = await request(server, { method: 'POST', path: '/graphql', headers: JSON_HEADERS, body, agent });
      sockets.add(response.socket);
      assert.equal(response.headers.connection, 'keep-alive');
    }
    assert.equal(sockets.size, 1);
  } finally {
    agent.destroy();
  }
});

test('HEAD answers what GET would, without a body: 200, 400 and 404 alike', async () => {
  const paths = ['/rest/comment/1', '/rest/comments/50', '/rest/user/1/comment', '/rest/user/1/comments/5',
    '/healthz', '/rest/comment/abc', '/rest/comments/0', '/rest/user/1/comments/x', '/rest/comment/%zz',
    '/rest/comment/200001', '/rest/user/1001/comment', '/nope', '/rest/comment/1/extra'];
  for (const path of paths) {
    const get = await request(server, { path });
    const head = await request(server, { method: 'HEAD', path });
    assert.equal(head.status, get.status, path);
    const { date: getDate, ...getHeaders } = get.headers;
    const { date: headDate, ...headHeaders } = head.headers;
    assert.deepEqual(headHeaders, getHeaders, path);
    assert.equal(head.body.length, 0, path);
    assertFramed(head, `HEAD ${path}`, { method: 'HEAD', expectedLength: get.body.length });
  }
});

test('database unreachable: 503 problems for REST, HEAD, /healthz and GraphQL, framed alike', async () => {
  const unreachable = await startServer({ DB_PORT: String(await closedPort()) });
  try {
    const UNREACHABLE = problem(503, 'the database is unreachable');
    const requests = [
      { path: '/rest/comment/1' },
      { path: '/rest/user/1/comments/5' },
      { path: '/healthz' },
      { method: 'POST', path: '/graphql', headers: JSON_HEADERS, body: graphqlBody('{ commentById(id: 1) { id } }') },
      { method: 'POST', path: '/graphql', headers: { ...JSON_HEADERS, Accept: 'application/graphql-response+json' },
        body: graphqlBody('{ a: commentsByLimit(limit: 5) { id } b: commentById(id: 1) { user { id } } }') },
    ];
    for (const init of requests) {
      const response = await request(unreachable, init);
      const label = `${init.method ?? 'GET'} ${init.path}`;
      assert.equal(response.status, 503, label);
      assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8', label);
      assert.equal(response.body.toString(), UNREACHABLE, label);
      assertFramed(response, label);
    }
    const head = await request(unreachable, { method: 'HEAD', path: '/healthz' });
    assert.equal(head.status, 503);
    assertFramed(head, 'HEAD /healthz', { method: 'HEAD', expectedLength: Buffer.byteLength(UNREACHABLE) });
    // Requests that need no SQL are still told apart from an outage.
    const invalid = await request(unreachable, { method: 'POST', path: '/graphql', headers: JSON_HEADERS,
      body: graphqlBody('{ commentById(id: 1) { id }') });
    assert.equal(invalid.status, 200);
    assert.match(invalid.body.toString(), /^\{"errors":\[\{"message":"Syntax Error/);
    assert.equal((await request(unreachable, { path: '/rest/comment/0' })).status, 400);
  } finally {
    await unreachable.stop();
  }
});
