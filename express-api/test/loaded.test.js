import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer } from './helpers.js';

const APP_DIR = fileURLToPath(new URL('..', import.meta.url));
const pinned = JSON.parse(readFileSync(new URL('../package.json', import.meta.url))).dependencies;
const manifest = JSON.parse(readFileSync(new URL('../framework.json', import.meta.url)));

async function loadedLine(server) {
  let line;
  for (let i = 0; i < 50 && !line; i += 1) {
    line = server.output().split('\n').find((l) => l.startsWith('testbed-loaded '));
    if (!line) await sleep(20);
  }
  assert.ok(line, server.output());
  return JSON.parse(line.slice('testbed-loaded '.length));
}

// The start-up line names what was really installed, which runs copy into their results.
for (const [graphqlServer, other] of [['express-graphql', 'graphql-http'], ['graphql-http', 'express-graphql']]) {
  test(`start-up with ${graphqlServer} reports the runtime, the pool and the libraries it loaded`, async () => {
    const server = await startServer({ GRAPHQL_SERVER: graphqlServer });
    try {
      const loaded = await loadedLine(server);
      assert.equal(loaded.runtime, `Node.js ${process.version}`);
      assert.equal(loaded.runtime_path, process.execPath);
      assert.equal(loaded.driver, 'mysql2');
      assert.equal(loaded.driver_version, pinned.mysql2);
      assert.equal(loaded.graphql_server, graphqlServer);
      assert.equal(loaded.graphql_server_version, pinned[graphqlServer]);
      assert.equal(loaded.processes, 1);
      assert.equal(loaded.pool_size_per_process, 100);
      for (const name of ['express', 'graphql', 'mysql2', 'dataloader', graphqlServer]) {
        assert.equal(loaded[name], pinned[name], name);
      }
      // The other library is installed but not loaded, so not reported.
      assert.equal(loaded[other], undefined);
    } finally {
      await server.stop();
    }
  });
}

// A runtime variant's line carries the version of the binary that ran, not framework.json's word:
// each variant binary is asked for its own version and must agree with what loaded.js reports.
for (const variant of manifest.variants.filter((v) => v.start && v.start[0] !== 'node')) {
  const binary = fileURLToPath(new URL(`../${variant.start[0]}`, import.meta.url));
  test(`the ${variant.name} variant reports the Node.js binary that really ran`, {
    skip: existsSync(binary) ? false : `${variant.start[0]} is not built (./testbed verify --framework express --variant ${variant.name} builds it)`,
  }, async () => {
    const version = spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout.trim();
    const server = await startServer({}, { node: binary });
    try {
      const loaded = await loadedLine(server);
      assert.equal(loaded.runtime, `Node.js ${version}`);
      assert.equal(loaded.runtime_path, binary);
      // framework.json states the version; the binary must be that version.
      assert.equal(`Node.js ${version}`, `Node.js v${variant.settings.runtime.replace('Node.js ', '')}`);
    } finally {
      await server.stop();
    }
  });
}

// loaded.js reads process.version where it runs, not the version of the node that started a test.
test('loaded.js reports the version of the process it runs in', () => {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e',
    "import { loadedReport } from './loaded.js'; console.log(loadedReport());"],
  { cwd: APP_DIR, encoding: 'utf8' });
  const loaded = JSON.parse(result.stdout.trim().slice('testbed-loaded '.length));
  assert.equal(loaded.runtime, `Node.js ${process.version}`);
  assert.equal(loaded.graphql_server, 'express-graphql');
});
