import express from 'express';
import { createData } from './data.js';
import { healthRouter } from './routes/health.js';
import { commentsRouter } from './routes/comments.js';
import { usersRouter } from './routes/users.js';
import { graphqlRouter } from './routes/graphql.js';
import { noSuchEndpoint, problemHandler } from './problems.js';

// The whole API over a mysql2 promise pool; server.js decides where it listens.
export function createApp(pool, graphqlLimits) {
  const data = createData(pool);
  const app = express();
  // Same headers as the ASP.NET side: no ETag hashing of every body, no X-Powered-By.
  app.set('etag', false);
  app.disable('x-powered-by');
  app.use(healthRouter(data), commentsRouter(data), usersRouter(data), graphqlRouter(data, graphqlLimits));
  app.use(noSuchEndpoint);
  app.use(problemHandler);
  return app;
}
