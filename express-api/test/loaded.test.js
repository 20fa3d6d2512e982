// The start-up line `testbed-loaded {json}` (loaded.js), where it is express's own: the GraphQL
// server loaded, the heap, each variant's Node binary. What every Node app reports alike is
// node-common/test/package.test.js's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { APP_DIR, manifest, startServer, loadedLine } from '../../node-common/test/helpers.js';

const pinned = JSON.parse(readFileSync(new URL('../package.json', import.meta.url))).dependencies;

// The start-up line names what was really installed, which runs copy into their results.
for (const [graphqlServer, other] of [['express-graphql', 'graphql-http'], ['graphql-http', 'express-graphql']]) {
  test(`start-up with ${graphqlServer} reports the libraries it loaded`, async () => {
    const server = await startServer({ GRAPHQL_SERVER: graphqlServer });
    try {
      const loaded = await loadedLine(server);
      assert.equal(loaded.graphql_server, graphqlServer);
      assert.equal(loaded.graphql_server_version, pinned[graphqlServer]);
      for (const name of ['express', 'graphql', graphqlServer]) {
        assert.equal(loaded[name], pinned[name], name);
      }
      // The other library is installed but not loaded, so not reported.
      assert.equal(loaded[other], undefined);
    } finally {
      await server.stop();
    }
  });
}

// The heap limit is V8's own figure, not a guess: an old-space flag moves it megabyte for megabyte
// (the young generation on top stays the same), and the flag itself shows in the line.
test('start-up reports the heap limit and the flags in force', async () => {
  const servers = await Promise.all([{}, { NODE_OPTIONS: '--max-old-space-size=300' },
    { NODE_OPTIONS: '--max-old-space-size=400' }].map((env) => startServer(env)));
  try {
    const [plain, small, large] = await Promise.all(servers.map(loadedLine));
    assert.deepEqual([plain.exec_argv, plain.node_options], [[], '']);
    assert.equal(small.node_options, '--max-old-space-size=300');
    assert.equal(large.heap_size_limit_mb - small.heap_size_limit_mb, 100);
    assert.ok(small.heap_size_limit_mb > 300 && plain.heap_size_limit_mb > large.heap_size_limit_mb);
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
});

// A pinned runtime's line carries the version of the binary that ran, not framework.json's word:
// each pinned binary (the default's, node22's) is asked for its own version and must agree with
// framework.json and with what loaded.js reports.
const pinnedRuntimes = manifest.variants.filter((v) => /^Node\.js \d+\.\d+\.\d+$/.test(v.settings.runtime));
test('the default and node22 pin their Node.js versions', () => {
  assert.deepEqual(pinnedRuntimes.map((v) => v.name), ['default', 'node22']);
});
for (const variant of pinnedRuntimes) {
  const start = variant.start ?? manifest.start;
  const binary = fileURLToPath(new URL(`../${start[0]}`, import.meta.url));
  test(`the ${variant.name} variant reports the Node.js binary that really ran`, {
    skip: existsSync(binary) ? false : `${start[0]} is not built (./testbed verify --framework express --variant ${variant.name} builds it)`,
  }, async () => {
    const version = spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout.trim();
    const server = await startServer({}, { node: binary });
    try {
      const loaded = await loadedLine(server);
      assert.equal(loaded.runtime, `Node.js ${version}`);
      assert.equal(loaded.runtime_path, binary);
      assert.equal(`Node.js ${version}`, variant.settings.runtime.replace('Node.js ', 'Node.js v'));
    } finally {
      await server.stop();
    }
  });
}

// The node20 variant is the machine's `node`, whatever version it is: 20.x, as framework.json says.
test('the node20 variant starts the machine\'s node, a Node.js 20', () => {
  const node20 = manifest.variants.find((v) => v.name === 'node20');
  assert.deepEqual(node20.start, ['node', 'server.js']);
  const version = spawnSync('node', ['--version'], { encoding: 'utf8' }).stdout.trim();
  assert.match(version, /^v20\./);
});

// loaded.js reads process.version where it runs, not the version of the node that started a test.
test('loaded.js reports the version of the process it runs in', () => {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e',
    "import { loadedReport } from './loaded.js'; console.log(loadedReport());"],
  { cwd: APP_DIR, encoding: 'utf8' });
  const loaded = JSON.parse(result.stdout.trim().slice('testbed-loaded '.length));
  assert.equal(loaded.runtime, `Node.js ${process.version}`);
  assert.equal(loaded.graphql_server, 'express-graphql');
});
