// Settings come from the environment only, so the testbed's manifest records all of them.
export const POOL_SIZE = 100;
// Kestrel's default, not Node's 5 s: on a saturated machine a load thread can wait longer than
// 5 s for the CPU between two requests, find its connection closed, and count an error that
// ASP.NET Core would never see.
export const KEEP_ALIVE_TIMEOUT_MS = 130_000;
// Node advises a headers timeout above the keep-alive timeout.
export const HEADERS_TIMEOUT_MS = 131_000;
// Kestrel's MaxRequestBodySize on the ASP.NET side: a POST /graphql body above it is a 413.
export const MAX_BODY_BYTES = 1_000_000;

// A setting the app cannot start with; server.js prints its message as one line and exits.
export class ConfigError extends Error {}

// The GraphQL abuse limits (contract/README.md, "Limits"). Only tests raise them, e.g. to read the
// whole schema by introspection; the benchmark runs the defaults.
function limit(env, name, fallback) {
  const text = env[name];
  // Empty counts as unset, as on the ASP.NET side, so that a compose file can pass `NAME=`.
  if (text === undefined || text === '') return fallback;
  const value = /^[1-9][0-9]*$/.test(text) ? Number(text) : NaN;
  if (!(value <= 2147483647)) {
    throw new ConfigError(`${name} must be a whole number from 1 to 2147483647, not '${text}'`);
  }
  return value;
}

export function loadConfig(env = process.env) {
  return {
    port: Number(env.PORT ?? 3000),
    db: {
      host: env.DB_HOST ?? '127.0.0.1',
      port: Number(env.DB_PORT ?? 3307),
      database: env.DB_NAME ?? 'forum',
      user: env.DB_USER ?? 'forum_api',
      password: env.DB_PASSWORD ?? 'forum_api',
    },
    graphqlLimits: {
      maxDepth: limit(env, 'GRAPHQL_MAX_DEPTH', 5),
      maxFields: limit(env, 'GRAPHQL_MAX_FIELDS', 200),
      maxComments: limit(env, 'GRAPHQL_MAX_COMMENTS', 1000),
    },
  };
}
