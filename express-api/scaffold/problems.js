// RFC 9457 problem bodies (forum-node-common/problems.js), the only error shape the contract allows.
import { problemBody, problemFor, NO_SUCH_ENDPOINT } from 'forum-node-common/problems.js';

export function sendProblem(res, status, detail) {
  res.status(status).type('application/problem+json').send(problemBody(status, detail));
}

// What a route of the skeleton answers until it is written: `./testbed verify` lists each one.
export const notImplemented = (route) => (req, res) => sendProblem(res, 501, `not implemented yet: ${route}`);

export function noSuchEndpoint(req, res) {
  sendProblem(res, 404, NO_SUCH_ENDPOINT);
}

// The one error middleware. Express 5 forwards rejected handler promises here.
export function problemHandler(error, req, res, next) {
  if (res.headersSent) return next(error);
  const problem = problemFor(error, error.status);
  return sendProblem(res, problem.status, problem.detail);
}
