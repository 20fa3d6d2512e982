// Shared by every test file of the Node apps, this folder's and each app's own: the app under test
// is the folder the tests run from (each app's `npm test` runs there, under framework.json's Node
// binary), started as its real server.js on a free port against the real database.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

export const APP_DIR = process.cwd();
if (!existsSync(join(APP_DIR, 'framework.json'))) {
  throw new Error(`run the tests from a Node app's folder (its npm test does), not from ${APP_DIR}`);
}
// What its start-up lines and one-line errors begin with: express-api, fastify-api.
export const APP_NAME = basename(APP_DIR);
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const manifest = JSON.parse(readFileSync(join(APP_DIR, 'framework.json'), 'utf8'));

const appRequire = createRequire(join(APP_DIR, 'package.json'));

// A module of forum-node-common as the app installed it (its copy, resolving graphql and mysql2 in
// the app's node_modules): what the app runs, not this folder's source.
export function installed(path) {
  return import(pathToFileURL(appRequire.resolve(`forum-node-common/${path}`)));
}

// The version of a package in the app's node_modules.
export function installedVersion(name) {
  return JSON.parse(readFileSync(join(APP_DIR, 'node_modules', name, 'package.json'), 'utf8')).version;
}

// The database the tests use: DB_* from the environment (./testbed test sets them), else the
// defaults, as the app reads them.
export const database = (await installed('config.js')).commonSettings(process.env).db;

// server.js's start-up line: `express-api: listening on http://127.0.0.1:3000 (pid 123)`, an IPv6
// address in brackets.
export const LISTENING = /listening on http:\/\/(\[[^\]]+\]|[0-9.]+):(\d+) /;

// Starts `node server.js` as the manifest would (NODE_ENV=production, DB_* from the environment,
// then `env`) and resolves once it listens; rejects with its output if it exits instead. `script`
// may be express's cluster.js (resolved once its first worker listens), `node` another binary.
export async function startServer(env = {}, { script = 'server.js', node = process.execPath } = {}) {
  const child = spawn(node, [script], {
    cwd: APP_DIR,
    env: { ...process.env, NODE_ENV: 'production', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr.on('data', (chunk) => { output += chunk; });
  const { host, port } = await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = LISTENING.exec(output);
      if (match) resolve({ host: match[1], port: Number(match[2]) });
    });
    // 'close', not 'exit': by then everything it printed has arrived.
    child.on('close', (code) => reject(new Error(`${script} exited with ${code}:\n${output}`)));
  });
  return {
    // What it listens on, as it said; an unspecified address (0.0.0.0, ::) is reached through loopback.
    host,
    port,
    url: `http://${{ '0.0.0.0': '127.0.0.1', '[::]': '[::1]' }[host] ?? host}:${port}`,
    pid: child.pid,
    output: () => output,
    exitCode: () => child.exitCode,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

// `node script` with `env` that must not start: its exit status and what it printed.
export function failedStart(env, script = 'server.js') {
  return spawnSync(process.execPath, [script], {
    cwd: APP_DIR, encoding: 'utf8', timeout: 30_000,
    env: { ...process.env, NODE_ENV: 'production', PORT: '0', ...env } });
}

// The start-up line `testbed-loaded {json}`, once the server has printed it.
export async function loadedLine(server) {
  let line;
  for (let i = 0; i < 50 && !line; i += 1) {
    line = server.output().split('\n').find((l) => l.startsWith('testbed-loaded '));
    if (!line) await sleep(20);
  }
  if (!line) throw new Error(`no testbed-loaded line:\n${server.output()}`);
  return JSON.parse(line.slice('testbed-loaded '.length));
}

export async function get(server, path, init = {}) {
  const response = await fetch(server.url + path, init);
  return { status: response.status, headers: response.headers, text: await response.text() };
}

export async function graphql(server, body, headers = {}) {
  return get(server, '/graphql', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

// One request through node:http, which (unlike fetch) adds no Accept header and shows the framing
// headers as sent: Content-Length, Transfer-Encoding.
export function request(server, { method = 'GET', path, headers = {}, body, agent }) {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(server.url + path, { method, headers, agent }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => resolve({
        status: response.statusCode,
        headers: response.headers,
        body: Buffer.concat(chunks),
        socket: response.socket,
      }));
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

export function problem(status, detail) {
  const titles = { 400: 'Bad Request', 404: 'Not Found', 405: 'Method Not Allowed',
    413: 'Payload Too Large', 503: 'Service Unavailable' };
  return JSON.stringify({ type: 'about:blank', title: titles[status], status, detail });
}

// A TCP relay to the database that records the text of every query the app sends (COM_QUERY
// packets: sequence number 0, command byte 0x03; mysql2 sends no TLS). Point the app's DB_PORT at
// `port`. Unlike the server's Com_select, which every client of the shared server adds to, it sees
// this app's statements alone, and what they say. `hold()` keeps what the app sends from the database
// (the app's queries wait, as on a busy server) until `release()`.
export async function startStatementRelay() {
  const { host, port } = database;
  const statements = [];
  const sockets = new Set();
  let held = null;
  const relay = net.createServer((client) => {
    const upstream = net.connect(port, host);
    let pending = Buffer.alloc(0);
    client.on('data', (data) => {
      pending = Buffer.concat([pending, data]);
      while (pending.length >= 4 && pending.length >= 4 + pending.readUIntLE(0, 3)) {
        const length = pending.readUIntLE(0, 3);
        if (pending[3] === 0 && pending[4] === 0x03) {
          statements.push(pending.subarray(5, 4 + length).toString('utf8'));
        }
        pending = pending.subarray(4 + length);
      }
      if (held) held.push(() => upstream.write(data));
      else upstream.write(data);
    });
    client.on('end', () => upstream.end());
    upstream.pipe(client);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => { client.destroy(); upstream.destroy(); });
      socket.on('close', () => sockets.delete(socket));
    }
  });
  relay.listen(0, '127.0.0.1');
  await once(relay, 'listening');
  return {
    port: relay.address().port,
    statements: () => [...statements],
    clear: () => { statements.length = 0; },
    hold: () => { held = []; },
    release: () => {
      const writes = held ?? [];
      held = null;
      writes.forEach((write) => write());
    },
    async close() {
      sockets.forEach((socket) => socket.destroy());
      relay.close();
      await once(relay, 'close');
    },
  };
}

// A port on which nothing listens: a database that cannot be reached, without stopping the real one.
export async function closedPort() {
  const probe = net.createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address();
  probe.close();
  await once(probe, 'close');
  return port;
}

// `./testbed db stop|start` on the managed server; DB_HOST would make it treat it as external.
export function testbedDb(action) {
  const env = { ...process.env };
  delete env.DB_HOST;
  const result = spawnSync('./testbed', ['db', action], { cwd: REPO_ROOT, env, encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(`./testbed db ${action} failed: ${result.stderr}${result.stdout}`);
  }
}

// /proc/net/tcp{,6} hold each address as 32-bit words in host (little-endian) byte order.
function procAddress(hex) {
  const bytes = hex.match(/.{8}/g).flatMap((word) => word.match(/../g).reverse()).map((b) => parseInt(b, 16));
  if (bytes.length === 4) return bytes.join('.');
  const groups = Array.from({ length: 8 }, (_, i) => ((bytes[2 * i] << 8) | bytes[2 * i + 1]).toString(16));
  // The kernel's words, shortened as Node writes them: enough for ::, ::1 and ::ffff:… here.
  return new net.SocketAddress({ address: groups.join(':'), family: 'ipv6' }).address;
}

// Every local address a socket LISTENs on with this port, as the kernel reports it.
export function listeningOn(port) {
  const found = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text;
    try { text = readFileSync(file, 'utf8'); } catch { continue; }
    for (const line of text.trim().split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      const [address, portHex] = local.split(':');
      if (state === '0A' && parseInt(portHex, 16) === port) found.push(procAddress(address));
    }
  }
  return found;
}

// An address of this machine other than loopback, to show what a remote load engine would reach.
export const externalAddress = Object.values(os.networkInterfaces()).flat()
  .find((i) => i && !i.internal && i.family === 'IPv4')?.address;

export function connects(host, port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, host);
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

// What the kernel says, an answer on loopback, and none from another address of the machine.
export async function assertLoopbackOnly(server) {
  assert.deepEqual(listeningOn(server.port), ['127.0.0.1']);
  assert.equal((await get(server, '/healthz')).status, 200);
  if (externalAddress) {
    assert.equal(await connects(externalAddress, server.port), false, `reachable on ${externalAddress}`);
  }
}
