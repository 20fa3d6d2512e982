// Where the app listens: loopback unless BIND_ADDRESS says otherwise (aspnet-api does the same).
// The real server.js, and what the kernel says is listening (/proc/net/tcp{,6}).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { loadConfig, ConfigError } from '../config.js';
import { startServer, get } from './helpers.js';

const APP_DIR = fileURLToPath(new URL('..', import.meta.url));
// Unset, whatever the environment running the tests holds (empty counts as unset).
const DEFAULT = { BIND_ADDRESS: '' };
const badAddress = (text) =>
  `fastify-api: BIND_ADDRESS must be an IP address such as 127.0.0.1 or 0.0.0.0, not '${text}'\n`;

// /proc/net/tcp{,6} hold each address as 32-bit words in host (little-endian) byte order.
function procAddress(hex) {
  const bytes = hex.match(/.{8}/g).flatMap((word) => word.match(/../g).reverse()).map((b) => parseInt(b, 16));
  if (bytes.length === 4) return bytes.join('.');
  const groups = Array.from({ length: 8 }, (_, i) => ((bytes[2 * i] << 8) | bytes[2 * i + 1]).toString(16));
  // The kernel's words, shortened as Node writes them: enough for ::, ::1 and ::ffff:… here.
  return new net.SocketAddress({ address: groups.join(':'), family: 'ipv6' }).address;
}

// Every local address a socket LISTENs on with this port, as the kernel reports it.
function listeningOn(port) {
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
const external = Object.values(os.networkInterfaces()).flat()
  .find((i) => i && !i.internal && i.family === 'IPv4')?.address;

function connects(host, port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, host);
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

test('BIND_ADDRESS: unset or empty is loopback; an IPv4 or IPv6 literal is taken as written', () => {
  assert.equal(loadConfig({}).bindAddress, '127.0.0.1');
  assert.equal(loadConfig({ BIND_ADDRESS: '' }).bindAddress, '127.0.0.1');
  for (const address of ['127.0.0.1', '0.0.0.0', '10.200.0.1', '::', '::1', 'fd00::2', '::ffff:127.0.0.1']) {
    assert.equal(loadConfig({ BIND_ADDRESS: address }).bindAddress, address);
  }
});

// The same table as aspnet-api's ListenAddressTests: what neither app takes.
test('BIND_ADDRESS that is not an IP literal is a ConfigError with one line', () => {
  for (const text of ['x', 'localhost', '1', '10.1', '010.0.0.1', '256.0.0.1', '1.2.3.4.5', '[::1]',
    '1::2::3', ' 127.0.0.1', '127.0.0.1:80', '0.0.0.0/0']) {
    assert.throws(() => loadConfig({ BIND_ADDRESS: text }), (error) => error instanceof ConfigError
      && `fastify-api: ${error.message}\n` === badAddress(text), text);
  }
});

test('by default server.js listens on 127.0.0.1 only, and says so', async () => {
  const server = await startServer(DEFAULT);
  try {
    assert.equal(server.host, '127.0.0.1');
    assert.match(server.output(), new RegExp(`^fastify-api: listening on http://127\\.0\\.0\\.1:${server.port} \\(pid \\d+\\)$`, 'm'));
    assert.deepEqual(listeningOn(server.port), ['127.0.0.1']);
    assert.equal((await get(server, '/healthz')).status, 200);
    if (external) assert.equal(await connects(external, server.port), false, `reachable on ${external}`);
  } finally {
    await server.stop();
  }
});

test('BIND_ADDRESS=0.0.0.0 listens on every IPv4 interface', async () => {
  const server = await startServer({ BIND_ADDRESS: '0.0.0.0' });
  try {
    assert.equal(server.host, '0.0.0.0');
    assert.deepEqual(listeningOn(server.port), ['0.0.0.0']);
    assert.equal((await get(server, '/healthz')).status, 200);
    if (external) assert.equal(await connects(external, server.port), true, `not reachable on ${external}`);
  } finally {
    await server.stop();
  }
});

test('BIND_ADDRESS=::1 listens on IPv6 loopback only', {
  skip: !Object.values(os.networkInterfaces()).flat().some((i) => i?.address === '::1') && 'no IPv6 loopback',
}, async () => {
  const server = await startServer({ BIND_ADDRESS: '::1' });
  try {
    assert.equal(server.host, '[::1]');
    assert.deepEqual(listeningOn(server.port), ['::1']);
    assert.equal((await get(server, '/healthz')).status, 200);
    assert.equal(await connects('127.0.0.1', server.port), false);
  } finally {
    await server.stop();
  }
});

test('a BIND_ADDRESS that is not an IP address stops server.js with one line', () => {
  const result = spawnSync(process.execPath, ['server.js'], {
    cwd: APP_DIR, encoding: 'utf8', timeout: 30_000,
    env: { ...process.env, NODE_ENV: 'production', PORT: '0', BIND_ADDRESS: 'x' } });
  assert.equal(result.status, 1);
  assert.equal(result.stderr, badAddress('x'));
  assert.equal(result.stdout, '');
});

// 203.0.113.0/24 is TEST-NET-3: no machine has it, so listening there fails as it would for a
// BIND_ADDRESS meant for another host.
test('an address this machine does not have stops server.js with one line', () => {
  const result = spawnSync(process.execPath, ['server.js'], {
    cwd: APP_DIR, encoding: 'utf8', timeout: 30_000,
    env: { ...process.env, NODE_ENV: 'production', PORT: '0', BIND_ADDRESS: '203.0.113.7' } });
  assert.equal(result.status, 1);
  assert.match(result.stderr, /^fastify-api: cannot listen on 203\.0\.113\.7 port 0: listen EADDRNOTAVAIL[^\n]*\n$/);
});

