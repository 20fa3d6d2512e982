import express from 'express';
import { createData } from 'forum-node-common/data.js';
import { lenientUrl } from 'forum-node-common/paths.js';
import { restEndpoints } from 'forum-node-common/rest.js';
import { healthRouter } from './routes/health.js';
import { commentsRouter } from './routes/comments.js';
import { usersRouter } from './routes/users.js';
import { graphqlRouter } from './routes/graphql.js';
import { noSuchEndpoint, problemHandler } from './problems.js';

// A path segment that is not valid percent-encoding is text, as Kestrel takes it
// (forum-node-common/paths.js); Express would refuse the whole path with its own words.
function undecodableEscapesAsText(req, res, next) {
  const lenient = lenientUrl(req.url);
  if (lenient !== req.url) req.url = lenient;
  next();
}

// The whole API over a mysql2 promise pool, GraphQL served by `graphqlServer` (a module of
// graphql/servers/); server.js decides where it listens, and `started` whether /healthz may say ready.
export function createApp(pool, graphqlLimits, graphqlServer, started = () => true) {
  const data = createData(pool);
  const rest = restEndpoints(data);
  const app = express();
  // Same headers as the ASP.NET side: no ETag hashing of every body, no X-Powered-By.
  app.set('etag', false);
  app.disable('x-powered-by');
  app.use(undecodableEscapesAsText);
  app.use(healthRouter(rest, started), commentsRouter(rest), usersRouter(rest), graphqlRouter(data, graphqlLimits, graphqlServer));
  app.use(noSuchEndpoint);
  app.use(problemHandler);
  return app;
}
