// One process listening on BIND_ADDRESS (loopback unless set) and PORT. Kept free of app logic so
// that cluster.js can fork workers that each run this file unchanged.
import cluster from 'node:cluster';
import { KEEP_ALIVE_TIMEOUT_MS, HEADERS_TIMEOUT_MS } from 'forum-node-common/config.js';
import { createPool } from 'forum-node-common/db.js';
import { loadConfigOrExit } from './config.js';
import { createApp } from './app.js';
import { loadGraphqlServer } from './graphql/servers.js';
import { loadedReport } from './loaded.js';
import { ALL_WORKERS_LISTEN } from './cluster-plan.js';

const config = loadConfigOrExit();
const pool = createPool(config.db, config.poolSize);
const graphqlServer = await loadGraphqlServer(config.graphqlServer);
// A cluster worker answers /healthz with 503 until the primary says every worker listens: the
// first worker to listen opens the port, and a load started then would open all its keep-alive
// connections to that one worker (round-robin hands out connections, not requests).
let started = !cluster.isWorker;
process.on('message', (message) => {
  if (message === ALL_WORKERS_LISTEN) started = true;
});
const app = createApp(pool, config.graphqlLimits, graphqlServer, () => started);
// Express also calls this with the error when listening fails (an address this machine does not
// have, a port in use); the 'error' handler below reports that.
const server = app.listen(config.port, config.bindAddress, (error) => {
  if (error) return;
  // The real address and port, so that PORT=0 (tests) can learn which port the system picked.
  const { address, port } = server.address();
  const host = address.includes(':') ? `[${address}]` : address;
  console.log(`express-api: listening on http://${host}:${port} (pid ${process.pid})`);
  console.log(loadedReport(config));
});
server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
server.headersTimeout = HEADERS_TIMEOUT_MS;

server.on('error', (error) => {
  console.error(`express-api: cannot listen on ${config.bindAddress} port ${config.port}: ${error.message}`);
  process.exit(1);
});

// Once: a cluster worker may get the signal twice, from its process group and from cluster.js.
let stopping = false;
function shutDown() {
  if (stopping) return;
  stopping = true;
  server.close(() => pool.end().finally(() => process.exit(0)));
  server.closeAllConnections();
}
process.on('SIGTERM', shutDown);
process.on('SIGINT', shutDown);
