// One process listening on PORT. Kept free of app logic so that a cluster variant can fork
// workers that each run this file unchanged.
import { loadConfig, ConfigError, KEEP_ALIVE_TIMEOUT_MS, HEADERS_TIMEOUT_MS } from './config.js';
import { createPool } from './db.js';
import { createApp } from './app.js';
import { loadedReport } from './loaded.js';

function configOrExit() {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // One line that says what to fix, not a stack trace.
    console.error(`express-api: ${error.message}`);
    return process.exit(1);
  }
}

const config = configOrExit();
const pool = createPool(config.db);
const server = createApp(pool, config.graphqlLimits).listen(config.port, () => {
  // The real port, so that PORT=0 (tests) can learn which one the system picked.
  console.log(`express-api: listening on port ${server.address().port} (pid ${process.pid})`);
  console.log(loadedReport());
});
server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
server.headersTimeout = HEADERS_TIMEOUT_MS;

server.on('error', (error) => {
  console.error(`express-api: cannot listen on port ${config.port}: ${error.message}`);
  process.exit(1);
});

function shutDown() {
  server.close(() => pool.end().finally(() => process.exit(0)));
  server.closeAllConnections();
}
process.on('SIGTERM', shutDown);
process.on('SIGINT', shutDown);
