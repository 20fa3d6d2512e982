// The database away: every answer that needs it is the 503 problem, framed like any other, while
// client mistakes are still told apart; and the app recovers by itself when it is back.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, get, graphql, request, problem, closedPort, testbedDb } from './helpers.js';

// Stopping the shared managed database is only allowed for the testbed's own server.
const managed = process.env.TESTBED_DB_MANAGED !== '0';

let server;
before(async () => { server = await startServer(); });
after(async () => { await server?.stop(); });

const UNREACHABLE = problem(503, 'the database is unreachable');

async function waitForHealth(deadlineMs) {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const response = await get(server, '/healthz');
    if (response.status === 200 || Date.now() > deadline) return response;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

test('database stopped mid-test: 503 problems, then 200 again by itself', { skip: !managed && 'external database' }, async () => {
  // Pooled connections exist before the outage, so stale ones are exercised too.
  await Promise.all(Array.from({ length: 20 }, () => get(server, '/rest/comments/10')));
  testbedDb('stop');
  try {
    const during = await Promise.all([
      get(server, '/rest/comment/1'),
      get(server, '/rest/comments/100'),
      get(server, '/rest/user/1/comment'),
      get(server, '/rest/user/1/comments/50'),
      get(server, '/healthz'),
      ...Array.from({ length: 150 }, () => get(server, '/rest/comment/2')),
    ]);
    for (const response of during) {
      assert.equal(response.status, 503);
      assert.equal(response.headers.get('content-type'), 'application/problem+json; charset=utf-8');
      assert.equal(response.text, UNREACHABLE);
    }
    for (const query of ['{ commentById(id: 1) { id } }', '{ commentsByLimit(limit: 5) { id } }']) {
      const response = await graphql(server, { query });
      assert.equal(response.status, 503);
      assert.equal(response.text, UNREACHABLE);
    }
    // Client mistakes are still told apart while the database is away.
    assert.equal((await get(server, '/rest/comment/0')).status, 400);
  } finally {
    testbedDb('start');
  }
  assert.equal((await waitForHealth(60_000)).status, 200);
  const again = await Promise.all(Array.from({ length: 150 }, () => get(server, '/rest/comment/2')));
  assert.deepEqual([...new Set(again.map((r) => r.status))], [200]);
  assert.equal((await graphql(server, { query: '{ commentById(id: 1) { user { id } } }' })).text,
    '{"data":{"commentById":{"user":{"id":"1"}}}}');
  assert.match(server.output(), /listening/);
});

const JSON_HEADERS = { 'Content-Type': 'application/json' };
const graphqlBody = (query) => JSON.stringify({ query });

// contract/README.md, "Framing": Content-Length and no Transfer-Encoding, the same header names.
function assertFramed(response, label, expectedLength = response.body.length) {
  assert.equal(response.headers['transfer-encoding'], undefined, label);
  assert.equal(response.headers['content-length'], String(expectedLength), label);
  const expected = ['connection', 'content-length', 'content-type', 'date'];
  if (response.headers.connection === 'keep-alive') expected.push('keep-alive');
  assert.deepEqual(Object.keys(response.headers).sort(), expected.sort(), label);
}

test('database unreachable: 503 problems for REST, HEAD, /healthz and GraphQL, framed alike', async () => {
  const unreachable = await startServer({ DB_PORT: String(await closedPort()) });
  try {
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
    assert.equal(head.body.length, 0);
    assertFramed(head, 'HEAD /healthz', Buffer.byteLength(UNREACHABLE));
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
