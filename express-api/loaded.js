// The start-up line `testbed-loaded {json}` (docs/adding-a-framework.md): the runtime and the versions of
// the libraries this process loaded, read from the running binary and the installed packages
// rather than from package.json's or framework.json's wishes, so that each run records what really
// served it (a variant's own Node binary included).
import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import v8 from 'node:v8';
import { POOL_SIZE } from 'forum-node-common/config.js';
import { GRAPHQL_SERVERS } from './config.js';

const LIBRARIES = ['express', 'graphql', 'mysql2', 'dataloader'];

function installedVersion(name) {
  const file = new URL(`./node_modules/${name}/package.json`, import.meta.url);
  return JSON.parse(readFileSync(file, 'utf8')).version;
}

// config: loadConfig()'s settings (the GraphQL server and this process's pool).
export function loadedReport({ graphqlServer = GRAPHQL_SERVERS[0], poolSize = POOL_SIZE } = {}) {
  const loaded = {
    runtime: `Node.js ${process.version}`,
    runtime_path: process.execPath,
    // The heap settings in force: V8's old-space limit follows the machine's (or the container's)
    // memory unless a flag sets it, so it is read back from V8 rather than assumed.
    heap_size_limit_mb: Math.round(v8.getHeapStatistics().heap_size_limit / 2 ** 20),
    exec_argv: process.execArgv,
    node_options: process.env.NODE_OPTIONS ?? '',
    driver: 'mysql2',
    driver_version: installedVersion('mysql2'),
    graphql_server: graphqlServer,
    graphql_server_version: installedVersion(graphqlServer),
    // cluster.js tells its workers how many they are; a lone server.js is the only process.
    processes: cluster.isWorker ? Number(process.env.CLUSTER_WORKERS) : 1,
    pool_size_per_process: poolSize,
  };
  for (const name of [...LIBRARIES, graphqlServer]) loaded[name] = installedVersion(name);
  return `testbed-loaded ${JSON.stringify(loaded)}`;
}
