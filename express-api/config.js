// Settings come from the environment only, so the testbed's manifest records all of them.
export const POOL_SIZE = 100;

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
