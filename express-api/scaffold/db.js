import mysql from 'mysql2/promise';

// The contract's pool, the same on every implementation: at most 100 connections, opened lazily,
// none reset on release, the text protocol (pool.query, never prepared statements).
export function createPool(env = process.env) {
  return mysql.createPool({
    host: env.DB_HOST || '127.0.0.1',
    port: Number(env.DB_PORT || 3307),
    database: env.DB_NAME || 'forum',
    user: env.DB_USER || 'forum_api',
    password: env.DB_PASSWORD || 'forum_api',
    connectionLimit: 100,
    maxIdle: 100,
    waitForConnections: true,
    queueLimit: 0,
    resetOnRelease: false,
    // DATE columns arrive as 'YYYY-MM-DD' text, as the contract writes them.
    dateStrings: true,
  });
}

// mysql2 marks "the server cannot be reached or dropped us" as fatal: a 503, not a 500.
export const isUnreachable = (error) => error?.fatal === true || error?.code === 'ECONNREFUSED';
