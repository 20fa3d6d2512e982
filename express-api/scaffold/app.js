import express from 'express';
import { createData } from 'forum-node-common/data.js';
import { restEndpoints } from 'forum-node-common/rest.js';
import { healthRouter } from './routes/health.js';
import { commentsRouter } from './routes/comments.js';
import { usersRouter } from './routes/users.js';
import { graphqlRouter } from './routes/graphql.js';
import { noSuchEndpoint, problemHandler } from './problems.js';

// The whole API over a mysql2 pool; server.js decides where it listens. The contract's SQL, row
// mapping and answers are forum-node-common's (data.js, rest.js), as in express-api and fastify-api.
export function createApp(pool) {
  const data = createData(pool);
  const rest = restEndpoints(data);
  const app = express();
  // The contract's headers: no ETag hashing of every body, no X-Powered-By.
  app.set('etag', false);
  app.disable('x-powered-by');
  app.use(healthRouter(rest), commentsRouter(rest), usersRouter(rest), graphqlRouter(data));
  app.use(noSuchEndpoint);
  app.use(problemHandler);
  return app;
}
