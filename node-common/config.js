// The settings every Node implementation reads from the environment, by the same rules and with the
// same defaults, so that the testbed's manifest records all of them. Each app adds its own (its
// port, its GraphQL server's options) with wholeNumber and its own checks.
import { isIP } from 'node:net';

// The database connections of the whole app (DB_POOL_SIZE), as on the ASP.NET side; express's
// cluster variant splits them among its workers.
export const POOL_SIZE = 100;
// Kestrel's default, not Node's 5 s: on a saturated machine a load thread can wait longer than
// 5 s for the CPU between two requests, find its connection closed, and count an error that
// ASP.NET Core would never see.
export const KEEP_ALIVE_TIMEOUT_MS = 130_000;
// Node advises a headers timeout above the keep-alive timeout.
export const HEADERS_TIMEOUT_MS = 131_000;
// Kestrel's MaxRequestBodySize on the ASP.NET side: a POST /graphql body above it is a 413.
export const MAX_BODY_BYTES = 1_000_000;
// Where the app listens unless BIND_ADDRESS says otherwise.
const DEFAULT_BIND_ADDRESS = '127.0.0.1';

// A setting the app cannot start with; loadOrExit prints its message as one line and exits.
export class ConfigError extends Error {}

export function wholeNumber(env, name, fallback) {
  const text = env[name];
  // Empty counts as unset, as on the ASP.NET side, so that a compose file can pass `NAME=`.
  if (text === undefined || text === '') return fallback;
  const value = /^[1-9][0-9]*$/.test(text) ? Number(text) : NaN;
  if (!(value <= 2147483647)) {
    throw new ConfigError(`${name} must be a whole number from 1 to 2147483647, not '${text}'`);
  }
  return value;
}

// Loopback unless BIND_ADDRESS names another address (the testbed sets it when the load comes
// from other machines; 0.0.0.0 is every IPv4 interface, :: every interface). An IP literal only,
// as Kestrel on the ASP.NET side takes it: a host name would be resolved differently by each stack.
function bindAddress(env) {
  const text = env.BIND_ADDRESS;
  if (text === undefined || text === '') return DEFAULT_BIND_ADDRESS;
  if (isIP(text) === 0) {
    throw new ConfigError(`BIND_ADDRESS must be an IP address such as 127.0.0.1 or 0.0.0.0, not '${text}'`);
  }
  return text;
}

// The settings every app has; `defaultPort` is the app's own (framework.json's default_port).
export function commonSettings(env, defaultPort) {
  return {
    port: Number(env.PORT ?? defaultPort),
    bindAddress: bindAddress(env),
    db: {
      host: env.DB_HOST ?? '127.0.0.1',
      port: Number(env.DB_PORT ?? 3307),
      database: env.DB_NAME ?? 'forum',
      user: env.DB_USER ?? 'forum_api',
      password: env.DB_PASSWORD ?? 'forum_api',
    },
    poolSize: wholeNumber(env, 'DB_POOL_SIZE', POOL_SIZE),
    // The GraphQL abuse limits (contract/README.md, "Limits"). Only tests raise them, e.g. to read
    // the whole schema by introspection; the benchmark runs the defaults.
    graphqlLimits: {
      maxDepth: wholeNumber(env, 'GRAPHQL_MAX_DEPTH', 5),
      maxFields: wholeNumber(env, 'GRAPHQL_MAX_FIELDS', 200),
      maxComments: wholeNumber(env, 'GRAPHQL_MAX_COMMENTS', 1000),
    },
  };
}

// load()'s settings, or one line `appName: what to fix` (not a stack trace) and exit status 1.
export function loadOrExit(appName, load) {
  try {
    return load();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`${appName}: ${error.message}`);
    return process.exit(1);
  }
}
