// The contract's SDL as graphql-js builds it. Run directly (`node contract/sdl.mjs`), it checks
// that schema.graphql builds and is a valid schema, and says how many types it defines.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { assertValidSchema, buildSchema } from 'graphql';

export const CONTRACT_SDL = fileURLToPath(new URL('./schema.graphql', import.meta.url));

export function contractSchema(path = CONTRACT_SDL) {
  const schema = buildSchema(readFileSync(path, 'utf8'));
  assertValidSchema(schema);
  return schema;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const defined = Object.keys(contractSchema().getTypeMap()).filter((name) => !name.startsWith('__'));
  console.log(`schema.graphql builds with graphql-js: ${defined.join(', ')}`);
}
