import express from 'express';
import { createData } from './data.js';
import { healthRouter } from './routes/health.js';
import { commentsRouter } from './routes/comments.js';
import { usersRouter } from './routes/users.js';
import { graphqlRouter } from './routes/graphql.js';
import { noSuchEndpoint, problemHandler } from './problems.js';

function decodes(segment) {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

// Kestrel keeps a percent sign that starts no valid escape as plain text, so that '/rest/comment/%zz'
// breaks the id rule like any other text; Express would refuse the whole path with its own words.
// Escaping such a segment's percent signs makes Express decode it to the same text.
function undecodableEscapesAsText(req, res, next) {
  const queryAt = req.url.indexOf('?');
  const path = queryAt === -1 ? req.url : req.url.slice(0, queryAt);
  const lenient = path.split('/')
    .map((segment) => (decodes(segment) ? segment : segment.replaceAll('%', '%25')))
    .join('/');
  if (lenient !== path) req.url = lenient + (queryAt === -1 ? '' : req.url.slice(queryAt));
  next();
}

// The whole API over a mysql2 promise pool, GraphQL served by `graphqlServer` (a module of
// graphql/servers/); server.js decides where it listens, and `started` whether /healthz may say ready.
export function createApp(pool, graphqlLimits, graphqlServer, started = () => true) {
  const data = createData(pool);
  const app = express();
  // Same headers as the ASP.NET side: no ETag hashing of every body, no X-Powered-By.
  app.set('etag', false);
  app.disable('x-powered-by');
  app.use(undecodableEscapesAsText);
  app.use(healthRouter(data, started), commentsRouter(data), usersRouter(data), graphqlRouter(data, graphqlLimits, graphqlServer));
  app.use(noSuchEndpoint);
  app.use(problemHandler);
  return app;
}
