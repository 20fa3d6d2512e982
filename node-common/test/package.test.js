// forum-node-common as the app installed it: the version its lock file records, a copy in its
// node_modules (so that the package's imports resolve to the app's graphql and to mysql2 and
// dataloader at the package's pins), rebuilt whenever the package changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, lstatSync } from 'node:fs';
import { join, relative } from 'node:path';
import { APP_DIR, REPO_ROOT, manifest, installedVersion, startServer, loadedLine } from './helpers.js';

const SOURCE = join(REPO_ROOT, 'node-common');
const INSTALLED = join(APP_DIR, 'node_modules', 'forum-node-common');
const pkg = JSON.parse(readFileSync(join(SOURCE, 'package.json'), 'utf8'));
const lock = JSON.parse(readFileSync(join(APP_DIR, 'package-lock.json'), 'utf8'));

// What the app runs of the package: every file npm installed, but the README it always packs.
function installedFiles() {
  return readdirSync(INSTALLED, { recursive: true })
    .filter((name) => lstatSync(join(INSTALLED, name)).isFile() && name !== 'README.md');
}

// npm ci installs what the lock file says the package needs, not what its package.json says now:
// a dependency added there without regenerating the app's lock file would be missing at run time.
test('the app\'s lock file records the package\'s dependencies as its package.json states them', () => {
  const locked = lock.packages['node_modules/forum-node-common'];
  assert.equal(locked.resolved, 'file:../node-common');
  assert.equal(locked.version, pkg.version);
  assert.deepEqual(locked.dependencies, pkg.dependencies);
  assert.deepEqual(locked.peerDependencies, pkg.peerDependencies);
});

test('the package is installed as a copy of its files, with no node_modules of its own', () => {
  assert.equal(lstatSync(INSTALLED).isSymbolicLink(), false, 'a link would resolve mysql2 and graphql from node-common/');
  assert.equal(existsSync(join(INSTALLED, 'node_modules')), false);
  for (const file of installedFiles()) {
    assert.equal(readFileSync(join(INSTALLED, file), 'utf8'), readFileSync(join(SOURCE, file), 'utf8'),
      `${file} differs from node-common/'s: rebuild the app (./testbed verify --framework ${manifest.name})`);
  }
});

// The build stamp hashes framework.json's build_inputs: a file of the package left out of them
// could change without the app being rebuilt, and the app would run the old copy.
test('every file of the package is a build input of the app', () => {
  const inputs = manifest.build_inputs.map((pattern) => join(APP_DIR, pattern));
  for (const file of installedFiles()) {
    const source = join(SOURCE, file);
    assert.ok(inputs.some((input) => matchesGlob(source, input)),
      `${relative(REPO_ROOT, source)} is not in ${manifest.name}'s build_inputs`);
  }
});

// framework.json's globs: `*` within one path segment.
function matchesGlob(path, pattern) {
  const regex = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*');
  return new RegExp(`^${regex}$`).test(path);
}

test('mysql2 and dataloader are the package\'s pins, and graphql the app\'s own, in the range it allows', () => {
  for (const name of Object.keys(pkg.dependencies)) {
    assert.equal(installedVersion(name), pkg.dependencies[name], name);
  }
  const { dependencies } = JSON.parse(readFileSync(join(APP_DIR, 'package.json'), 'utf8'));
  assert.deepEqual(Object.keys(pkg.dependencies).filter((name) => name in dependencies), [],
    'the app pins the package\'s libraries again');
  assert.equal(installedVersion('graphql'), dependencies.graphql);
  const [major] = dependencies.graphql.split('.');
  assert.match(pkg.peerDependencies.graphql, new RegExp(`\\^${major}\\.`));
});

// Each run records the start-up line: the driver and the batching library are the package's.
test('start-up reports the runtime, the pool and the package\'s libraries as loaded', async () => {
  const server = await startServer();
  try {
    const loaded = await loadedLine(server);
    assert.equal(loaded.runtime, `Node.js ${process.version}`);
    assert.equal(loaded.runtime_path, process.execPath);
    assert.equal(loaded.driver, 'mysql2');
    assert.equal(loaded.driver_version, pkg.dependencies.mysql2);
    assert.equal(loaded.mysql2, pkg.dependencies.mysql2);
    assert.equal(loaded.dataloader, pkg.dependencies.dataloader);
    assert.equal(loaded.graphql, installedVersion('graphql'));
    assert.equal(loaded.processes, 1);
    assert.equal(loaded.pool_size_per_process, 100);
  } finally {
    await server.stop();
  }
});
