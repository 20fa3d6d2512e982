// Shared by the test files: a real server.js on a free port, and a real database connection.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import mysql from 'mysql2/promise';
import { loadConfig } from '../config.js';

const APP_DIR = fileURLToPath(new URL('..', import.meta.url));
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

// server.js's start-up line: `fastify-api: listening on http://127.0.0.1:3100 (pid 123)`, an IPv6
// address in brackets.
export const LISTENING = /listening on http:\/\/(\[[^\]]+\]|[0-9.]+):(\d+) /;

// Starts `node server.js` as the manifest would (NODE_ENV=production, DB_* from the environment
// that ./testbed test provides, or the managed defaults, then `env`) and resolves once it listens;
// rejects with its output if it exits instead. `node` is the one running the tests (npm test runs
// them with framework.json's Node 24 binary).
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
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
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
    503: 'Service Unavailable' };
  return JSON.stringify({ type: 'about:blank', title: titles[status], status, detail });
}

export function connectDatabase() {
  return mysql.createConnection({ ...loadConfig().db, dateStrings: true });
}

// The rows the API should return, read by the test's own SQL (dates formatted by the server).
// STRAIGHT_JOIN walks comments in key order, so LIMIT stops early without a WHERE.
export async function expectedComments(connection, where, params, limit, withUser) {
  const [rows] = await connection.query(
    `SELECT c.comment_id, c.thread_id, c.user_id, c.body,
            DATE_FORMAT(c.datemade, '%Y-%m-%d') AS made, DATE_FORMAT(c.datelastupdated, '%Y-%m-%d') AS updated,
            u.name, u.email, u.phone
       FROM comment c STRAIGHT_JOIN user u ON u.user_id = c.user_id ${where} ORDER BY c.comment_id LIMIT ?`,
    [...params, limit]);
  return rows.map((r) => {
    const comment = { id: r.comment_id, threadId: r.thread_id, userId: r.user_id, body: r.body,
      dateMade: r.made, dateLastUpdated: r.updated };
    return withUser
      ? { ...comment, user: { id: r.user_id, name: r.name, email: r.email, phone: r.phone } }
      : comment;
  });
}

// A TCP relay to the database that records the text of every query the app sends (COM_QUERY
// packets: sequence number 0, command byte 0x03; mysql2 sends no TLS). Point the app's DB_PORT at
// `port`. Unlike the server's Com_select, which every client of the shared server adds to, it sees
// this app's statements alone, and what they say.
export async function startStatementRelay() {
  const { host, port } = loadConfig().db;
  const statements = [];
  const sockets = new Set();
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
    });
    client.pipe(upstream).pipe(client);
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
