// One process listening on BIND_ADDRESS (loopback unless set) and PORT.
import { HEADERS_TIMEOUT_MS } from 'forum-node-common/config.js';
import { createPool } from 'forum-node-common/db.js';
import { loadConfigOrExit } from './config.js';
import { createApp } from './app.js';
import { loadedReport } from './loaded.js';

const config = loadConfigOrExit();
const pool = createPool(config.db, config.poolSize);
const app = await createApp(pool, { limits: config.graphqlLimits, jit: config.graphqlJit });

// An address this machine does not have, a port in use: one line, exit status 1.
const listening = await app.listen({ port: config.port, host: config.bindAddress }).then(
  () => true,
  (error) => {
    console.error(`fastify-api: cannot listen on ${config.bindAddress} port ${config.port}: ${error.message}`);
    return false;
  },
);
if (!listening) process.exit(1);
// Fastify sets the keep-alive and request timeouts (app.js) but not this one.
app.server.headersTimeout = HEADERS_TIMEOUT_MS;
// The real address and port, so that PORT=0 (tests) can learn which port the system picked.
const { address, port } = app.server.address();
const host = address.includes(':') ? `[${address}]` : address;
console.log(`fastify-api: listening on http://${host}:${port} (pid ${process.pid})`);
console.log(loadedReport(config));

let stopping = false;
function shutDown() {
  if (stopping) return;
  stopping = true;
  app.server.closeAllConnections();
  app.close().then(() => pool.end()).finally(() => process.exit(0));
}
process.on('SIGTERM', shutDown);
process.on('SIGINT', shutDown);
