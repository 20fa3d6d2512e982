// The start-up line `testbed-loaded {json}` (contract/README.md): the runtime and the versions of
// the libraries this process loaded, read from the running binary and the installed packages
// rather than from package.json's or framework.json's wishes, so that each run records what really
// served it.
import { readFileSync } from 'node:fs';
import { POOL_SIZE } from 'forum-node-common/config.js';

const LIBRARIES = ['fastify', 'mercurius', 'graphql', 'graphql-jit', 'mysql2', 'dataloader'];

function installedVersion(name) {
  const file = new URL(`./node_modules/${name}/package.json`, import.meta.url);
  return JSON.parse(readFileSync(file, 'utf8')).version;
}

// config: loadConfig()'s settings (this process's pool and mercurius' jit).
export function loadedReport({ poolSize = POOL_SIZE, graphqlJit = 0 } = {}) {
  const loaded = {
    runtime: `Node.js ${process.version}`,
    runtime_path: process.execPath,
    driver: 'mysql2',
    driver_version: installedVersion('mysql2'),
    graphql_server: 'mercurius',
    graphql_server_version: installedVersion('mercurius'),
    graphql_jit: graphqlJit === 0 ? 'off' : `after ${graphqlJit} use${graphqlJit === 1 ? '' : 's'}`,
    processes: 1,
    pool_size_per_process: poolSize,
  };
  for (const name of LIBRARIES) loaded[name] = installedVersion(name);
  return `testbed-loaded ${JSON.stringify(loaded)}`;
}
