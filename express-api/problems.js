// The problem bodies of forum-node-common/problems.js, sent the Express way, and the one error
// middleware.
import { problemBody, problemFor, METHOD_NOT_ALLOWED, NO_SUCH_ENDPOINT } from 'forum-node-common/problems.js';

export function sendProblem(res, status, detail, headers = {}) {
  res.status(status).set(headers).type('application/problem+json').send(problemBody(status, detail));
}

// A route that exists but not for this method.
export function methodNotAllowed(allow) {
  return (req, res) => sendProblem(res, 405, METHOD_NOT_ALLOWED, { Allow: allow });
}

export function noSuchEndpoint(req, res) {
  sendProblem(res, 404, NO_SUCH_ENDPOINT);
}

// The one error middleware. Express 5 forwards rejected handler promises here; its own client
// errors carry a 4xx `status`.
export function problemHandler(error, req, res, next) {
  if (res.headersSent) return next(error);
  const problem = problemFor(error, error.status);
  return sendProblem(res, problem.status, problem.detail, problem.headers);
}
