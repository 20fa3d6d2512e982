// Settings come from the environment only, so the testbed's manifest records all of them.
export const POOL_SIZE = 100;
// Kestrel's default, not Node's 5 s: on a saturated machine a load thread can wait longer than
// 5 s for the CPU between two requests, find its connection closed, and count an error that
// ASP.NET Core would never see.
export const KEEP_ALIVE_TIMEOUT_MS = 130_000;
// Node advises a headers timeout above the keep-alive timeout.
export const HEADERS_TIMEOUT_MS = 131_000;

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
  };
}
