import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer } from './helpers.js';

// The start-up line names what was really installed, which runs copy into their results.
test('start-up reports the runtime and the installed library versions', async () => {
  const server = await startServer();
  try {
    let line;
    for (let i = 0; i < 50 && !line; i += 1) {
      line = server.output().split('\n').find((l) => l.startsWith('testbed-loaded '));
      if (!line) await sleep(20);
    }
    assert.ok(line, server.output());
    const loaded = JSON.parse(line.slice('testbed-loaded '.length));
    const pinned = JSON.parse(readFileSync(new URL('../package.json', import.meta.url))).dependencies;
    assert.equal(loaded.runtime, `Node.js ${process.version}`);
    assert.equal(loaded.driver, 'mysql2');
    for (const [name, version] of Object.entries(pinned)) assert.equal(loaded[name], version, name);
  } finally {
    await server.stop();
  }
});
