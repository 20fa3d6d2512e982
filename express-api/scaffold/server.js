// One process listening on BIND_ADDRESS (loopback unless set) and PORT, as the testbed starts it.
// The settings, the pool and the keep-alive timeouts are every Node app's (forum-node-common).
import { commonSettings, loadOrExit, KEEP_ALIVE_TIMEOUT_MS, HEADERS_TIMEOUT_MS } from 'forum-node-common/config.js';
import { createPool } from 'forum-node-common/db.js';
import { createApp } from './app.js';
import { loadedReport } from './loaded.js';

const config = loadOrExit('{{NAME}}-api', () => commonSettings(process.env, '{{PORT}}'));
const pool = createPool(config.db, config.poolSize);
const server = createApp(pool).listen(config.port, config.bindAddress, (error) => {
  if (error) return;
  // The real port, so that PORT=0 (the tests) can learn which one the system picked.
  console.log(`{{NAME}}-api: listening on http://${config.bindAddress}:${server.address().port} (pid ${process.pid})`);
  console.log(loadedReport());
});
server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
server.headersTimeout = HEADERS_TIMEOUT_MS;
server.on('error', (error) => {
  console.error(`{{NAME}}-api: cannot listen on ${config.bindAddress} port ${config.port}: ${error.message}`);
  process.exit(1);
});

function shutDown() {
  server.close(() => pool.end().finally(() => process.exit(0)));
  server.closeAllConnections();
}
process.on('SIGTERM', shutDown);
process.on('SIGINT', shutDown);
