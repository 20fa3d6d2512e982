// The cluster variant: cluster.js and the arithmetic of cluster-plan.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer, failedStart, get, problem, LISTENING, assertLoopbackOnly }
  from '../../node-common/test/helpers.js';
import { workerCount, poolShares } from '../cluster-plan.js';

// The cluster's workers together open at most what one process would: 100.
test('the pool is split so that the shares add up to the total', () => {
  assert.deepEqual(poolShares(100, 2), [50, 50]);
  assert.deepEqual(poolShares(100, 3), [34, 33, 33]);
  assert.deepEqual(poolShares(100, 1), [100]);
  for (let workers = 1; workers <= 100; workers += 1) {
    const shares = poolShares(100, workers);
    assert.equal(shares.length, workers);
    assert.equal(shares.reduce((a, b) => a + b), 100, `${workers} workers`);
    assert.ok(Math.max(...shares) - Math.min(...shares) <= 1, `${workers} workers`);
  }
});

test('one worker per core, never more workers than connections', () => {
  assert.equal(workerCount(100, 2), 2);
  assert.equal(workerCount(100, 64), 64);
  assert.equal(workerCount(3, 8), 3);
  assert.equal(workerCount(100, 0), 1);
});

// Every process whose parent is `pid`, from /proc/*/stat: /proc/<pid>/task/<pid>/children lists only
// the children of that one thread, and the kernel documents it as unreliable while children start.
function children(pid) {
  return readdirSync('/proc').filter((name) => /^\d+$/.test(name)).filter((name) => {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
    } catch {
      return false; // gone since readdir
    }
  }).map(Number);
}

function environment(pid) {
  return Object.fromEntries(readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')
    .filter(Boolean).map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]));
}

test('cluster.js forks one worker per core, each with its share of the pool, and serves the API', async () => {
  const server = await startServer({}, { script: 'cluster.js' });
  try {
    const expected = workerCount(100);
    let workers = [];
    const listening = () => (server.output().match(new RegExp(LISTENING, 'g')) ?? []).length;
    const loadedLines = () => server.output().split('\n').filter((l) => l.startsWith('testbed-loaded '));
    // A worker's two start-up lines reach the pipe as separate writes (on Node 24 often apart), so
    // wait for both kinds, not for the first.
    for (let i = 0; i < 100 && (listening() < expected || loadedLines().length < expected
      || children(server.pid).length < expected); i += 1) {
      await sleep(50);
    }
    workers = children(server.pid);
    assert.equal(workers.length, expected, server.output());
    const shares = workers.map((pid) => Number(environment(pid).DB_POOL_SIZE));
    assert.equal(shares.reduce((a, b) => a + b), 100);
    assert.deepEqual(shares.toSorted((a, b) => b - a), poolShares(100, expected));
    const loaded = loadedLines().map((l) => JSON.parse(l.slice('testbed-loaded '.length)));
    assert.equal(loaded.length, expected);
    for (const line of loaded) assert.equal(line.processes, expected);
    const response = await get(server, '/rest/comment/1');
    assert.equal(response.status, 200);
    assert.match(response.text, /^\{"id":1,/);
  } finally {
    await server.stop();
  }
});

// Loaded into every process of the cluster (NODE_OPTIONS=--import): the second worker listens
// 1.5 s after it would have, as a slow start on a busy machine does.
const SLOW_SECOND_WORKER = `
import cluster from 'node:cluster';
import net from 'node:net';
if (cluster.isWorker && cluster.worker.id === 2) {
  const listen = net.Server.prototype.listen;
  net.Server.prototype.listen = function (...args) {
    setTimeout(() => listen.apply(this, args), 1500);
    return this;
  };
}
`;

test('the cluster says ready on /healthz only once every worker listens', {
  skip: workerCount(100) < 2 && 'one core: a cluster of one worker',
}, async () => {
  const preload = join(mkdtempSync(join(tmpdir(), 'cluster-test-')), 'slow-second-worker.mjs');
  writeFileSync(preload, SLOW_SECOND_WORKER);
  // Resolves as soon as the first worker listens, which opens the port.
  const server = await startServer({ NODE_OPTIONS: `--import ${pathToFileURL(preload)}` },
    { script: 'cluster.js' });
  const listening = () => (server.output().match(new RegExp(LISTENING, 'g')) ?? []).length;
  try {
    const early = await get(server, '/healthz');
    assert.equal(listening(), 1, server.output());
    assert.equal(early.status, 503);
    assert.equal(early.text, problem(503, 'starting: not every cluster worker listens yet'));
    let ready = early;
    for (let i = 0; i < 100 && ready.status !== 200; i += 1) {
      await sleep(50);
      ready = await get(server, '/healthz');
    }
    assert.equal(ready.status, 200, server.output());
    assert.equal(listening(), workerCount(100), server.output());
  } finally {
    await server.stop();
  }
});

test('a signal to the primary alone stops every worker', async () => {
  const server = await startServer({}, { script: 'cluster.js' });
  await sleep(500);
  const workers = children(server.pid);
  assert.ok(workers.length >= 1);
  await server.stop();
  await sleep(100);
  for (const pid of workers) {
    assert.equal(spawnSync('kill', ['-0', String(pid)]).status, 1, `worker ${pid} still runs`);
  }
});

test('a bad setting stops cluster.js with one line before any worker is forked', () => {
  for (const [name, value, message] of [
    ['DB_POOL_SIZE', 'many', "DB_POOL_SIZE must be a whole number from 1 to 2147483647, not 'many'"],
    ['BIND_ADDRESS', 'x', "BIND_ADDRESS must be an IP address such as 127.0.0.1 or 0.0.0.0, not 'x'"],
  ]) {
    const result = failedStart({ [name]: value }, 'cluster.js');
    assert.equal(result.status, 1, name);
    assert.equal(result.stderr, `express-api: ${message}\n`);
    assert.equal(result.stdout, '');
  }
});

test('the cluster\'s workers listen on BIND_ADDRESS too: loopback by default', async () => {
  const server = await startServer({ BIND_ADDRESS: '' }, { script: 'cluster.js' });
  try {
    const expected = workerCount(100);
    const lines = () => server.output().match(new RegExp(LISTENING, 'gm')) ?? [];
    for (let i = 0; i < 100 && lines().length < expected; i += 1) await sleep(50);
    assert.equal(lines().length, expected, server.output());
    for (const line of lines()) assert.match(line, /http:\/\/127\.0\.0\.1:/);
    await assertLoopbackOnly(server);
  } finally {
    await server.stop();
  }
});
