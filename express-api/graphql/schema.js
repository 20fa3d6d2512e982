import { readFileSync } from 'node:fs';
import { buildSchema } from 'graphql';
import { resolvers } from 'forum-node-common/graphql/resolvers.js';

// The contract's SDL, read from contract/ beside this folder (in the Docker image too).
const SDL = readFileSync(new URL('../../contract/schema.graphql', import.meta.url), 'utf8');

// Built once at start-up and shared by every request: the SDL with forum-node-common's resolvers
// attached to its fields.
export function createSchema() {
  const schema = buildSchema(SDL);
  for (const [type, fields] of Object.entries(resolvers)) {
    const defined = schema.getType(type).getFields();
    for (const [field, resolve] of Object.entries(fields)) defined[field].resolve = resolve;
  }
  return schema;
}
