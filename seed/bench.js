// Seeding speed: the bulk load of the full data set against the study's one INSERT per row.
// Overwrites the forum tables of the database named by DB_*: run it through bench_seed.py,
// which points it at a throwaway server.
import { performance } from 'node:perf_hooks';
import { COLUMNS, checksum, generate } from './generate.js';
import { bulkInsert, connect, load, truncate } from './load.js';

const PER_ROW_SAMPLE = 5000;
const seconds = (ms) => (ms / 1000).toFixed(2);

const db = await connect();
let t0 = performance.now();
const rows = generate(1);
const generated = performance.now() - t0;
const total = Object.values(rows).reduce((n, r) => n + r.length, 0);

t0 = performance.now();
await load(db, rows, 1, checksum(rows));
const bulk = performance.now() - t0;

await truncate(db);
const sample = rows.comment.slice(0, PER_ROW_SAMPLE);
const sql = `INSERT INTO comment (${COLUMNS.comment.join(', ')}) VALUES (?, ?, ?, ?, ?, ?)`;
t0 = performance.now();
for (const row of sample) await db.query(sql, row);
const perRow = performance.now() - t0;
await db.end();

const bulkRate = (total / bulk) * 1000;
const perRowRate = (PER_ROW_SAMPLE / perRow) * 1000;
console.log(`generate (faker, ${total} rows):        ${seconds(generated)} s`);
console.log(`bulk load (${total} rows, ${rows.comment.length} comments): ${seconds(bulk)} s, ${Math.round(bulkRate)} rows/s`);
console.log(`full seed = generate + bulk load:       ${seconds(generated + bulk)} s (target <= 15 s)`);
console.log(`study's one INSERT per row (${PER_ROW_SAMPLE} rows):    ${seconds(perRow)} s, ${Math.round(perRowRate)} rows/s`);
console.log(`bulk / per-row throughput ratio:        ${(bulkRate / perRowRate).toFixed(1)}x`);
