import mysql from 'mysql2/promise';
import { POOL_SIZE } from './config.js';

// The contract's pool, the same shape in every Node app and on the ASP.NET side (at most 100
// connections, none kept open in advance, no reset on return): connections are opened lazily and
// not reset on release. `size` is this process's share: all of POOL_SIZE, or a cluster worker's part.
export function createPool(db, size = POOL_SIZE) {
  return mysql.createPool({
    ...db,
    connectionLimit: size,
    maxIdle: size,
    waitForConnections: true,
    queueLimit: 0,
    resetOnRelease: false,
    // DATE columns arrive as 'YYYY-MM-DD' text: no time-zone shift through a JS Date.
    dateStrings: true,
  });
}

// Errors that say "the server cannot be reached or dropped us", as opposed to a bad query.
const UNREACHABLE = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND',
  'EAI_AGAIN', 'EPIPE', 'PROTOCOL_CONNECTION_LOST', 'PROTOCOL_SEQUENCE_TIMEOUT',
  'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR', 'ER_CON_COUNT_ERROR', 'ER_SERVER_SHUTDOWN',
  'ER_CONNECTION_KILLED', 'ER_TOO_MANY_USER_CONNECTIONS',
]);

// What mysql2 rejects a query with, with no code, once pool.end() has begun: at shutdown, the requests
// still queued for a connection, whose clients are gone. The database is out of reach for them, and
// their failure is no bug to log.
const POOL_CLOSED = 'Pool is closed.';

export function isUnreachable(error) {
  if (error == null) return false;
  // mysql2 marks connection-level failures as fatal, whatever their code.
  return error.fatal === true || UNREACHABLE.has(error.code) || error.message === POOL_CLOSED;
}
