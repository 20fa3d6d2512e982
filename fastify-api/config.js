// Settings come from the environment only, so the testbed's manifest records all of them.
import { isIP } from 'node:net';

// The database connections of the app (DB_POOL_SIZE), as on the other sides.
export const POOL_SIZE = 100;
// Kestrel's default and express-api's, not Node's 5 s: on a saturated machine a load thread can
// wait longer than 5 s for the CPU between two requests and find its connection closed.
export const KEEP_ALIVE_TIMEOUT_MS = 130_000;
// Node advises a headers timeout above the keep-alive timeout.
export const HEADERS_TIMEOUT_MS = 131_000;
// Node's own default, which express-api keeps; Fastify's default would be 0 (no limit).
export const REQUEST_TIMEOUT_MS = 300_000;
// Kestrel's MaxRequestBodySize on the ASP.NET side: a POST /graphql body above it is a 413.
export const MAX_BODY_BYTES = 1_000_000;

// A setting the app cannot start with; server.js prints its message as one line and exits.
export class ConfigError extends Error {}

function wholeNumber(env, name, fallback) {
  const text = env[name];
  // Empty counts as unset, as on the other sides, so that a compose file can pass `NAME=`.
  if (text === undefined || text === '') return fallback;
  const value = /^[1-9][0-9]*$/.test(text) ? Number(text) : NaN;
  if (!(value <= 2147483647)) {
    throw new ConfigError(`${name} must be a whole number from 1 to 2147483647, not '${text}'`);
  }
  return value;
}

// Loopback unless BIND_ADDRESS names another address; an IP literal only, as on the other sides
// (a host name would be resolved differently by each stack).
export const DEFAULT_BIND_ADDRESS = '127.0.0.1';

function bindAddress(env) {
  const text = env.BIND_ADDRESS;
  if (text === undefined || text === '') return DEFAULT_BIND_ADDRESS;
  if (isIP(text) === 0) {
    throw new ConfigError(`BIND_ADDRESS must be an IP address such as 127.0.0.1 or 0.0.0.0, not '${text}'`);
  }
  return text;
}

export function loadConfig(env = process.env) {
  return {
    port: Number(env.PORT ?? 3100),
    bindAddress: bindAddress(env),
    db: {
      host: env.DB_HOST ?? '127.0.0.1',
      port: Number(env.DB_PORT ?? 3307),
      database: env.DB_NAME ?? 'forum',
      user: env.DB_USER ?? 'forum_api',
      password: env.DB_PASSWORD ?? 'forum_api',
    },
    poolSize: wholeNumber(env, 'DB_POOL_SIZE', POOL_SIZE),
    // mercurius' `jit`: compile a query with graphql-jit once it has been seen this many times.
    // Unset is 0, mercurius' own default: never (the `jit` variant sets 1).
    graphqlJit: wholeNumber(env, 'GRAPHQL_JIT', 0),
    graphqlLimits: {
      maxDepth: wholeNumber(env, 'GRAPHQL_MAX_DEPTH', 5),
      maxFields: wholeNumber(env, 'GRAPHQL_MAX_FIELDS', 200),
      maxComments: wholeNumber(env, 'GRAPHQL_MAX_COMMENTS', 1000),
    },
  };
}

// The settings, or one line that says what to fix (not a stack trace) and exit status 1.
export function loadConfigOrExit() {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`fastify-api: ${error.message}`);
    return process.exit(1);
  }
}
