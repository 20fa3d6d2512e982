// One process listening on PORT. Kept free of app logic so that cluster.js can fork workers that
// each run this file unchanged.
import { loadConfigOrExit, KEEP_ALIVE_TIMEOUT_MS, HEADERS_TIMEOUT_MS } from './config.js';
import { createPool } from './db.js';
import { createApp } from './app.js';
import { loadGraphqlServer } from './graphql/servers.js';
import { loadedReport } from './loaded.js';

const config = loadConfigOrExit();
const pool = createPool(config.db, config.poolSize);
const graphqlServer = await loadGraphqlServer(config.graphqlServer);
const server = createApp(pool, config.graphqlLimits, graphqlServer).listen(config.port, () => {
  // The real port, so that PORT=0 (tests) can learn which one the system picked.
  console.log(`express-api: listening on port ${server.address().port} (pid ${process.pid})`);
  console.log(loadedReport(config));
});
server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
server.headersTimeout = HEADERS_TIMEOUT_MS;

server.on('error', (error) => {
  console.error(`express-api: cannot listen on port ${config.port}: ${error.message}`);
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
