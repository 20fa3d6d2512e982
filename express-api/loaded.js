// The start-up line `testbed-loaded {json}` (contract/README.md): the runtime and the versions of
// the libraries this process loaded, read from the installed packages rather than from
// package.json's wishes, so that each run records what really served it.
import { readFileSync } from 'node:fs';

const LIBRARIES = ['express', 'express-graphql', 'graphql', 'mysql2', 'dataloader'];

function installedVersion(name) {
  const file = new URL(`./node_modules/${name}/package.json`, import.meta.url);
  return JSON.parse(readFileSync(file, 'utf8')).version;
}

export function loadedReport() {
  const loaded = { runtime: `Node.js ${process.version}`, driver: 'mysql2',
    driver_version: installedVersion('mysql2') };
  for (const name of LIBRARIES) loaded[name] = installedVersion(name);
  return `testbed-loaded ${JSON.stringify(loaded)}`;
}
