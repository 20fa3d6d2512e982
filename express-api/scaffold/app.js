import express from 'express';
import { healthRouter } from './routes/health.js';
import { commentsRouter } from './routes/comments.js';
import { usersRouter } from './routes/users.js';
import { graphqlRouter } from './routes/graphql.js';
import { noSuchEndpoint, problemHandler } from './problems.js';

// The whole API over a mysql2 pool; server.js decides where it listens.
export function createApp(pool) {
  const app = express();
  // The contract's headers: no ETag hashing of every body, no X-Powered-By.
  app.set('etag', false);
  app.disable('x-powered-by');
  app.use(healthRouter(pool), commentsRouter(pool), usersRouter(pool), graphqlRouter(pool));
  app.use(noSuchEndpoint);
  app.use(problemHandler);
  return app;
}
