// Where the app listens: loopback unless BIND_ADDRESS says otherwise (aspnet-api does the same).
// The rule (forum-node-common/config.js), the real server.js, and what the kernel says is listening.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import { APP_NAME, installed, startServer, failedStart, get, listeningOn, externalAddress, connects,
  assertLoopbackOnly } from './helpers.js';

const { commonSettings, ConfigError } = await installed('config.js');
// Unset, whatever the environment running the tests holds (empty counts as unset).
const DEFAULT = { BIND_ADDRESS: '' };
const badAddress = (text) =>
  `${APP_NAME}: BIND_ADDRESS must be an IP address such as 127.0.0.1 or 0.0.0.0, not '${text}'\n`;

test('BIND_ADDRESS: unset or empty is loopback; an IPv4 or IPv6 literal is taken as written', () => {
  assert.equal(commonSettings({}).bindAddress, '127.0.0.1');
  assert.equal(commonSettings({ BIND_ADDRESS: '' }).bindAddress, '127.0.0.1');
  for (const address of ['127.0.0.1', '0.0.0.0', '10.200.0.1', '::', '::1', 'fd00::2', '::ffff:127.0.0.1']) {
    assert.equal(commonSettings({ BIND_ADDRESS: address }).bindAddress, address);
  }
});

// The same table as aspnet-api's ListenAddressTests: what no app takes.
test('BIND_ADDRESS that is not an IP literal is a ConfigError with one line', () => {
  for (const text of ['x', 'localhost', '1', '10.1', '010.0.0.1', '256.0.0.1', '1.2.3.4.5', '[::1]',
    '1::2::3', ' 127.0.0.1', '127.0.0.1:80', '0.0.0.0/0']) {
    assert.throws(() => commonSettings({ BIND_ADDRESS: text }), (error) => error instanceof ConfigError
      && `${APP_NAME}: ${error.message}\n` === badAddress(text), text);
  }
});

test('by default server.js listens on 127.0.0.1 only, and says so', async () => {
  const server = await startServer(DEFAULT);
  try {
    assert.equal(server.host, '127.0.0.1');
    assert.match(server.output(), new RegExp(`^${APP_NAME}: listening on http://127\\.0\\.0\\.1:${server.port} \\(pid \\d+\\)$`, 'm'));
    await assertLoopbackOnly(server);
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
    if (externalAddress) {
      assert.equal(await connects(externalAddress, server.port), true, `not reachable on ${externalAddress}`);
    }
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
  const result = failedStart({ BIND_ADDRESS: 'x' });
  assert.equal(result.status, 1);
  assert.equal(result.stderr, badAddress('x'));
  assert.equal(result.stdout, '');
});

// 203.0.113.0/24 is TEST-NET-3: no machine has it, so listening there fails as it would for a
// BIND_ADDRESS meant for another host.
test('an address this machine does not have stops server.js with one line', () => {
  const result = failedStart({ BIND_ADDRESS: '203.0.113.7' });
  assert.equal(result.status, 1);
  assert.match(result.stderr, new RegExp(`^${APP_NAME}: cannot listen on 203\\.0\\.113\\.7 port 0: listen EADDRNOTAVAIL[^\\n]*\\n$`));
});
