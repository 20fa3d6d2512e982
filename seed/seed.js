// Loads the forum data set into the database named by DB_* and writes the load plans' id files.
// Usage: node seed.js [--scale N] [--ids-dir DIR] [--force]
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import mysql from 'mysql2/promise';
import { COLUMNS, SEED, checksum, generate, shuffled } from './generate.js';
import { createRequire } from 'node:module';

const FAKER_VERSION = createRequire(import.meta.url)('@faker-js/faker/package.json').version;
const BATCH = 5000;

class UsageError extends Error {}

function options() {
  const { values } = parseArgs({
    options: {
      scale: { type: 'string', default: '1' },
      'ids-dir': { type: 'string', default: 'ids' },
      force: { type: 'boolean', default: false },
    },
  });
  if (!/^[1-9][0-9]{0,2}$/.test(values.scale)) {
    throw new UsageError(`--scale must be a whole number from 1 to 999, not '${values.scale}'.`);
  }
  return { scale: Number(values.scale), idsDir: values['ids-dir'], force: values.force };
}

async function connect() {
  const { DB_HOST = '127.0.0.1', DB_PORT = '3307', DB_USER, DB_PASSWORD, DB_NAME = 'forum' } = process.env;
  try {
    return await mysql.createConnection({
      host: DB_HOST, port: Number(DB_PORT), user: DB_USER, password: DB_PASSWORD,
      database: DB_NAME, connectTimeout: 5000, dateStrings: true,
    });
  } catch (error) {
    throw new UsageError(`cannot reach the database at ${DB_HOST}:${DB_PORT} as ${DB_USER} ` +
      `(${error.code ?? error.message}); start it (./testbed db start) or fix DB_HOST/DB_PORT.`);
  }
}

async function loadedSet(db) {
  const [rows] = await db.query('SELECT seed, scale, checksum FROM seed_meta WHERE id = 1');
  return rows[0];
}

async function load(db, rows, sum) {
  await db.query('DELETE FROM seed_meta');
  for (const table of Object.keys(COLUMNS)) await db.query(`TRUNCATE TABLE \`${table}\``);
  await db.query('SET unique_checks = 0');
  for (const [table, columns] of Object.entries(COLUMNS)) {
    const all = rows[table];
    for (let start = 0; start < all.length; start += BATCH) {
      await db.query(`INSERT INTO \`${table}\` (${columns.join(', ')}) VALUES ?`,
        [all.slice(start, start + BATCH)]);
    }
    console.error(`seed: ${table}: ${all.length} rows`);
  }
  await db.query('SET unique_checks = 1');
  // Written last: a load that is cut short leaves no metadata, so the next run reloads.
  await db.execute(
    'INSERT INTO seed_meta (id, seed, scale, faker_version, checksum, loaded_at) VALUES (1, ?, ?, ?, ?, NOW())',
    [SEED, rows.scale, FAKER_VERSION, sum]);
}

async function writeIds(dir, users, comments) {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'user_ids.csv'), `user_id\n${shuffled(users).join('\n')}\n`);
  await writeFile(join(dir, 'comment_ids.csv'), `comment_id\n${shuffled(comments).join('\n')}\n`);
}

async function main() {
  const { scale, idsDir, force } = options();
  const db = await connect();
  try {
    const current = await loadedSet(db);
    let sum = current?.checksum;
    if (force || !current || current.seed !== SEED || current.scale !== scale) {
      console.error(`seed: generating scale ${scale} with faker ${FAKER_VERSION}, seed ${SEED} ...`);
      const rows = generate(scale);
      rows.scale = scale;
      sum = checksum(rows);
      await load(db, rows, sum);
    } else {
      console.error(`seed: seed ${SEED}, scale ${scale} is already loaded; nothing to do.`);
    }
    await writeIds(idsDir, 1000 * scale, 200000 * scale);
    console.log(`checksum: ${sum}`);
  } finally {
    await db.end();
  }
}

main().catch((error) => {
  console.error(`seed: ${error instanceof UsageError ? error.message : error.stack}`);
  process.exit(2);
});
