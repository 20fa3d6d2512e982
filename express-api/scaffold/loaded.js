// The start-up line `testbed-loaded {json}`: what this process really loaded, read from the
// installed packages, so that every run records what served it. Add each library you load.
import { readFileSync } from 'node:fs';

const installedVersion = (name) => JSON.parse(
  readFileSync(new URL(`./node_modules/${name}/package.json`, import.meta.url), 'utf8')).version;

export function loadedReport() {
  return `testbed-loaded ${JSON.stringify({
    runtime: `Node.js ${process.version}`,
    runtime_path: process.execPath,
    driver: 'mysql2',
    driver_version: installedVersion('mysql2'),
    processes: 1,
    pool_size_per_process: 100,
    express: installedVersion('express'),
    mysql2: installedVersion('mysql2'),
  })}`;
}
