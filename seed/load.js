// Database side of the seeder: connect, read what is loaded, bulk-load a generated data set.
import { createRequire } from 'node:module';
import mysql from 'mysql2/promise';
import { COLUMNS, SEED } from './generate.js';

export const FAKER_VERSION = createRequire(import.meta.url)('@faker-js/faker/package.json').version;
const BATCH = 5000;

export class UsageError extends Error {}

export async function connect() {
  const { DB_HOST = '127.0.0.1', DB_PORT = '3307', DB_USER, DB_PASSWORD, DB_NAME = 'forum' } = process.env;
  try {
    return await mysql.createConnection({
      host: DB_HOST, port: Number(DB_PORT), user: DB_USER, password: DB_PASSWORD,
      database: DB_NAME, connectTimeout: 5000,
    });
  } catch (error) {
    throw new UsageError(`cannot reach the database at ${DB_HOST}:${DB_PORT} as ${DB_USER} ` +
      `(${error.code ?? error.message}); start it (./testbed db start) or fix DB_HOST/DB_PORT.`);
  }
}

export async function loadedSet(db) {
  const [rows] = await db.query('SELECT seed, scale, checksum FROM seed_meta WHERE id = 1');
  return rows[0];
}

export async function truncate(db) {
  await db.query('DELETE FROM seed_meta');
  for (const table of Object.keys(COLUMNS)) await db.query(`TRUNCATE TABLE \`${table}\``);
}

// Multi-row INSERTs of BATCH rows, values escaped by the driver.
export async function bulkInsert(db, table, rows) {
  const columns = COLUMNS[table].join(', ');
  for (let start = 0; start < rows.length; start += BATCH) {
    await db.query(`INSERT INTO \`${table}\` (${columns}) VALUES ?`, [rows.slice(start, start + BATCH)]);
  }
}

export async function load(db, rows, scale, checksum, progress = () => {}) {
  await truncate(db);
  await db.query('SET unique_checks = 0');
  for (const table of Object.keys(COLUMNS)) {
    await bulkInsert(db, table, rows[table]);
    progress(`${table}: ${rows[table].length} rows`);
  }
  await db.query('SET unique_checks = 1');
  // Written last: a load that is cut short leaves no metadata, so the next run reloads.
  await db.execute(
    'INSERT INTO seed_meta (id, seed, scale, faker_version, checksum, loaded_at) VALUES (1, ?, ?, ?, ?, NOW())',
    [SEED, scale, FAKER_VERSION, checksum]);
}
