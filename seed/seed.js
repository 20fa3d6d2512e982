// Loads the forum data set into the database named by DB_* and writes the load plans' id files.
// Usage: node seed.js [--scale N] [--ids-dir DIR] [--force]
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SEED, checksum, generate, shuffled } from './generate.js';
import { FAKER_VERSION, UsageError, connect, load, loadedSet } from './load.js';

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
      sum = checksum(rows);
      await load(db, rows, scale, sum, (line) => console.error(`seed: ${line}`));
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
