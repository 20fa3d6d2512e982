// One process listening on BIND_ADDRESS (loopback unless set) and PORT, as the testbed starts it.
import { createPool } from './db.js';
import { createApp } from './app.js';
import { loadedReport } from './loaded.js';

const port = Number(process.env.PORT || '{{PORT}}');
const address = process.env.BIND_ADDRESS || '127.0.0.1';
const pool = createPool();
const server = createApp(pool).listen(port, address, (error) => {
  if (error) return;
  // The real port, so that PORT=0 (the tests) can learn which one the system picked.
  console.log(`{{NAME}}-api: listening on http://${address}:${server.address().port} (pid ${process.pid})`);
  console.log(loadedReport());
});
// Kestrel's keep-alive default, not Node's 5 s: every implementation keeps JMeter's connections
// open as long (express-api's README, "HTTP keep-alive").
server.keepAliveTimeout = 130_000;
server.headersTimeout = 131_000;
server.on('error', (error) => {
  console.error(`{{NAME}}-api: cannot listen on ${address} port ${port}: ${error.message}`);
  process.exit(1);
});

function shutDown() {
  server.close(() => pool.end().finally(() => process.exit(0)));
  server.closeAllConnections();
}
process.on('SIGTERM', shutDown);
process.on('SIGINT', shutDown);
