// The parts every implementation needs whatever its routes: it starts, says where it listens,
// is ready once the database answers, and an unknown path is the contract's 404 problem.
// Add a test beside each route you write; `./testbed verify --framework {{NAME}}` checks the rest.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const LISTENING = /listening on http:\/\/([0-9.]+):(\d+) /;

async function startServer() {
  const child = spawn(process.execPath, ['server.js'], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    env: { ...process.env, NODE_ENV: 'production', PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  const url = await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = LISTENING.exec(output);
      if (match) resolve(`http://${match[1]}:${match[2]}`);
    });
    child.on('close', (code) => reject(new Error(`server.js exited with ${code}:\n${output}`)));
  });
  return { url, output: () => output, stop: async () => { child.kill('SIGTERM'); await once(child, 'exit'); } };
}

test('it starts, reports what it loaded, and is ready once the database answers', async () => {
  const server = await startServer();
  try {
    const response = await fetch(`${server.url}/healthz`);
    assert.equal(response.status, 200);
    assert.equal(await response.text(), '{"status":"ok"}');
    assert.match(server.output(), /^testbed-loaded \{"runtime":"Node\.js v/m);
  } finally {
    await server.stop();
  }
});

test('an unknown path is the 404 problem "no such endpoint"', async () => {
  const server = await startServer();
  try {
    const response = await fetch(`${server.url}/no/such/path`);
    assert.equal(response.status, 404);
    assert.equal(response.headers.get('content-type'), 'application/problem+json; charset=utf-8');
    assert.equal(await response.text(),
      '{"type":"about:blank","title":"Not Found","status":404,"detail":"no such endpoint"}');
  } finally {
    await server.stop();
  }
});
