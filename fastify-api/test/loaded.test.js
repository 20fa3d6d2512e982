// The start-up line `testbed-loaded {json}` (loaded.js), where it is fastify's own: the binary
// framework.json pins, mercurius and its jit. What every Node app reports alike is
// node-common/test/package.test.js's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { manifest, startServer, failedStart, loadedLine, installedVersion } from '../../node-common/test/helpers.js';

const pinned = JSON.parse(readFileSync(new URL('../package.json', import.meta.url))).dependencies;

// The start-up line names what was really installed and run, which runs copy into their results.
// The tests run under framework.json's own Node binary (npm test), so process.execPath is it.
test('start-up reports the Node.js binary that ran, jit and the libraries it loaded', async () => {
  const server = await startServer();
  try {
    const loaded = await loadedLine(server);
    const version = spawnSync(process.execPath, ['--version'], { encoding: 'utf8' }).stdout.trim();
    assert.equal(loaded.runtime, `Node.js ${version}`);
    assert.equal(loaded.runtime_path, fileURLToPath(new URL(`../${manifest.start[0]}`, import.meta.url)));
    // framework.json states the version; the binary must be that version.
    assert.equal(loaded.runtime, `Node.js v${manifest.settings.runtime.replace('Node.js ', '')}`);
    assert.equal(loaded.graphql_server, 'mercurius');
    assert.equal(loaded.graphql_server_version, pinned.mercurius);
    assert.equal(loaded.graphql_jit, 'off');
    for (const name of ['fastify', 'mercurius', 'graphql']) {
      assert.equal(loaded[name], pinned[name], name);
    }
    // mercurius' own dependency, whose version package.json does not pin.
    assert.equal(loaded['graphql-jit'], installedVersion('graphql-jit'));
  } finally {
    await server.stop();
  }
});

test('the jit variant reports mercurius compiling a query on its second use', async () => {
  const jit = manifest.variants.find((variant) => variant.name === 'jit');
  const server = await startServer(jit.env);
  try {
    assert.equal((await loadedLine(server)).graphql_jit, 'after 1 use');
  } finally {
    await server.stop();
  }
});

test('a bad GRAPHQL_JIT stops start-up with one line naming it', () => {
  const result = failedStart({ GRAPHQL_JIT: 'yes' });
  assert.equal(result.status, 1);
  assert.equal(result.stderr, "fastify-api: GRAPHQL_JIT must be a whole number from 1 to 2147483647, not 'yes'\n");
});
