// The parts every implementation needs whatever its routes: it starts, says what it loaded, is
// ready once the database answers, and an unknown path is the contract's 404 problem. The helpers
// are every Node app's (node-common/test/helpers.js: the app is the folder npm test runs in).
// Add a test beside each route you write; `./testbed verify --framework {{NAME}}` checks the rest.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, get, loadedLine } from '../../node-common/test/helpers.js';

let server;
before(async () => { server = await startServer(); });
after(async () => { await server?.stop(); });

test('it starts, reports what it loaded, and is ready once the database answers', async () => {
  const response = await get(server, '/healthz');
  assert.equal(response.status, 200);
  assert.equal(response.text, '{"status":"ok"}');
  assert.equal((await loadedLine(server)).runtime, `Node.js ${process.version}`);
});

test('an unknown path is the 404 problem "no such endpoint"', async () => {
  const response = await get(server, '/no/such/path');
  assert.equal(response.status, 404);
  assert.equal(response.headers.get('content-type'), 'application/problem+json; charset=utf-8');
  assert.equal(response.text,
    '{"type":"about:blank","title":"Not Found","status":404,"detail":"no such endpoint"}');
});
