import { METHOD_NOT_ALLOWED } from 'forum-node-common/problems.js';
import { sendProblem } from '../problems.js';

// Fastify answers a Content-Type it cannot parse (an empty one, say) with its own 415, and a QUERY
// request without one with a 400, before any handler runs; on the other sides that header is the
// endpoint's business (a 405 problem, or the GraphQL transport's 415). So on routes that may take
// a body it is kept in request.declaredContentType (app.js), and Fastify sees a neutral type in its
// place, which only the catch-all parser that reads nothing takes.
const NEUTRAL = 'application/octet-stream';

function takeContentType(request, reply, done) {
  request.declaredContentType = request.headers['content-type'];
  request.headers['content-type'] = NEUTRAL;
  done();
}

// One path of the API: `handler` for the methods in `allow`, a 405 problem naming them for every
// other method Fastify knows (Express's `route(path).all(…)`). A GET route also answers HEAD
// (Fastify's exposeHeadRoutes): the same status and headers, no body.
export function resource(app, url, allow, handler) {
  const refused = app.supportedMethods
    .filter((method) => !allow.includes(method) && !(method === 'HEAD' && allow.includes('GET')));
  const takesBody = !allow.every((method) => method === 'GET');
  app.route({ method: allow, url, handler, ...(takesBody && { onRequest: takeContentType }) });
  app.route({
    method: refused,
    url,
    onRequest: takeContentType,
    handler: (request, reply) => sendProblem(reply, 405, METHOD_NOT_ALLOWED, { Allow: allow.join(', ') }),
  });
}
