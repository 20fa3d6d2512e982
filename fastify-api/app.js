import { METHODS } from 'node:http';
import Fastify from 'fastify';
import { MAX_BODY_BYTES, KEEP_ALIVE_TIMEOUT_MS } from 'forum-node-common/config.js';
import { createData } from 'forum-node-common/data.js';
import { lenientUrl } from 'forum-node-common/paths.js';
import { restEndpoints } from 'forum-node-common/rest.js';
import { healthRoutes } from './routes/health.js';
import { commentRoutes } from './routes/comments.js';
import { userRoutes } from './routes/users.js';
import { graphqlRoutes } from './routes/graphql.js';
import { graphqlExecutor } from './graphql/execute.js';
import { noSuchEndpoint, problemHandler } from './problems.js';
import { REQUEST_TIMEOUT_MS } from './config.js';

// The whole API over a mysql2 promise pool; server.js decides where it listens.
// graphql: { limits, jit } (config.js's graphqlLimits and graphqlJit).
export async function createApp(pool, { limits, jit }) {
  const data = createData(pool);
  const app = Fastify({
    logger: false,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    requestTimeout: REQUEST_TIMEOUT_MS,
    // POST /graphql reads its body itself (forum-node-common/graphql/http.js, with this limit);
    // declared for the record.
    bodyLimit: MAX_BODY_BYTES,
    // A path segment that is not valid percent-encoding is text, as Kestrel takes it
    // (forum-node-common/paths.js); Fastify's router would answer such a path with its own 400.
    rewriteUrl: (req) => lenientUrl(req.url),
    // As Express and Kestrel match: any letter case, a trailing slash allowed; an id of any length
    // reaches the id rule (400) instead of the router's 100-character limit (404).
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: 2048 },
  });
  // Every method Node's parser takes (PROPFIND, …) reaches the routes, so that a wrong one is a
  // 405 as in Express, not Fastify's 404. CONNECT never reaches an HTTP handler.
  for (const method of METHODS) {
    if (method !== 'CONNECT' && !app.supportedMethods.includes(method)) app.addHttpMethod(method, { hasBody: true });
  }
  // No body parsing anywhere: a REST path answers 405 to a POST whatever its body, as the other
  // sides do, and POST /graphql checks its body by the contract's rules.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (request, payload, done) => done(null));
  // The Content-Type as sent, on routes that take a body (routes/resource.js).
  app.decorateRequest('declaredContentType', undefined);

  const execute = await graphqlExecutor(app, data, limits, jit);
  const rest = restEndpoints(data);
  healthRoutes(app, rest);
  commentRoutes(app, rest);
  userRoutes(app, rest);
  graphqlRoutes(app, execute);
  app.setNotFoundHandler(noSuchEndpoint);
  app.setErrorHandler(problemHandler);
  return app;
}
