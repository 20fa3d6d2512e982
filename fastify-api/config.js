// Settings come from the environment only, so the testbed's manifest records all of them: those
// of every Node app (forum-node-common/config.js) and mercurius' jit.
import { commonSettings, loadOrExit, wholeNumber } from 'forum-node-common/config.js';

// Node's own default, which express-api keeps; Fastify's default would be 0 (no limit).
export const REQUEST_TIMEOUT_MS = 300_000;

export function loadConfig(env = process.env) {
  return {
    ...commonSettings(env, 3100),
    // mercurius' `jit`: compile a query with graphql-jit once it has been seen this many times.
    // Unset is 0, mercurius' own default: never (the `jit` variant sets 1).
    graphqlJit: wholeNumber(env, 'GRAPHQL_JIT', 0),
  };
}

// The settings, or one line that says what to fix and exit status 1.
export const loadConfigOrExit = () => loadOrExit('fastify-api', loadConfig);
