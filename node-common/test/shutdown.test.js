// Stopping an app while requests still wait for a database connection, as the memory pass stops an
// app that was under load: it exits 0, and the requests its clients left print no error each.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer, get, startStatementRelay } from './helpers.js';

async function until(condition, what) {
  for (let i = 0; i < 100; i += 1) {
    if (condition()) return;
    await sleep(20);
  }
  throw new Error(`waited 2 s for ${what}`);
}

test('SIGTERM with requests queued for the pool: exit 0, no error printed for them', async () => {
  const relay = await startStatementRelay();
  const server = await startServer({ DB_PORT: String(relay.port), DB_POOL_SIZE: '1' });
  try {
    // The pool's one connection, open before the database is held.
    assert.equal((await get(server, '/rest/comment/1')).status, 200);
    relay.clear();
    relay.hold();
    const waiting = Array.from({ length: 5 }, () => get(server, '/rest/comment/2'));
    await until(() => relay.statements().length === 1, 'the first query to reach the database');
    const stopped = server.stop();
    // The clients' connections close first; the app then closes its pool, whose queue still holds
    // four of the requests.
    const answers = await Promise.allSettled(waiting);
    assert.deepEqual(answers.map((a) => a.status), Array(5).fill('rejected'));
    await sleep(200);
    relay.release();
    await stopped;
    assert.equal(server.exitCode(), 0);
    assert.doesNotMatch(server.output(), /Error|Pool is closed/);
  } finally {
    // The relay first: an app still waiting on a held query could not finish stopping.
    relay.release();
    await relay.close();
    await server.stop();
  }
});
