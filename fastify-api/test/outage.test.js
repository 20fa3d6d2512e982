import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, get, graphql, problem, testbedDb } from './helpers.js';

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
