import { sendProblem } from '../problems.js';

// One path of the API: `handler` for the methods in `allow`, a 405 problem naming them for every
// other method Fastify knows (Express's `route(path).all(…)`). A GET route also answers HEAD
// (Fastify's exposeHeadRoutes): the same status and headers, no body.
export function resource(app, url, allow, handler) {
  const refused = app.supportedMethods
    .filter((method) => !allow.includes(method) && !(method === 'HEAD' && allow.includes('GET')));
  app.route({ method: allow, url, handler });
  app.route({
    method: refused,
    url,
    handler: (request, reply) => sendProblem(reply, 405, 'method not allowed', { Allow: allow.join(', ') }),
  });
}
