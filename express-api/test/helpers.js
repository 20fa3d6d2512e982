// Shared by the test files: a real server.js on a free port, and a real database connection.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import mysql from 'mysql2/promise';
import { loadConfig } from '../config.js';

const APP_DIR = fileURLToPath(new URL('..', import.meta.url));
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

// Starts `node server.js` as the manifest would (NODE_ENV=production, DB_* from the environment
// that ./testbed test provides, or the managed defaults) and resolves once it listens.
export async function startServer() {
  const child = spawn(process.execPath, ['server.js'], {
    cwd: APP_DIR,
    env: { ...process.env, NODE_ENV: 'production', PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr.on('data', (chunk) => { output += chunk; });
  const port = await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /listening on port (\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    });
    child.on('exit', (code) => reject(new Error(`server.js exited with ${code}:\n${output}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
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

export async function graphql(server, body) {
  return get(server, '/graphql', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
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

// Com_select is server-wide and the database is shared, so other clients can only add to the
// delta: the smallest delta over a few tries is this request's own count.
export async function selectsDuring(connection, action, tries = 10) {
  const count = async () => {
    const [[row]] = await connection.query("SHOW GLOBAL STATUS LIKE 'Com_select'");
    return Number(row.Value);
  };
  let fewest = Infinity;
  for (let i = 0; i < tries; i += 1) {
    const before = await count();
    await action();
    fewest = Math.min(fewest, await count() - before);
  }
  return fewest;
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
