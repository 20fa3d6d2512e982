// The problem bodies of forum-node-common/problems.js, sent the Fastify way, and the one error
// handler.
import { problemBody, problemFor, NO_SUCH_ENDPOINT } from 'forum-node-common/problems.js';

// The body is a finished string with its charset spelled out, so Fastify sends it as is.
export function sendProblem(reply, status, detail, headers = {}) {
  return reply.code(status).headers(headers).type('application/problem+json; charset=utf-8')
    .send(problemBody(status, detail));
}

export function noSuchEndpoint(request, reply) {
  return sendProblem(reply, 404, NO_SUCH_ENDPOINT);
}

// The one error handler: handlers throw (or reject with) a Problem, a database error or a bug;
// Fastify's own client errors carry a 4xx `statusCode`.
export function problemHandler(error, request, reply) {
  const problem = problemFor(error, error.statusCode);
  return sendProblem(reply, problem.status, problem.detail, problem.headers);
}
