// RFC 9457 problem bodies: the only error shape the contract allows (contract/openapi.yaml).
import { isUnreachable } from './db.js';

const TITLES = { 404: 'Not Found', 500: 'Internal Server Error', 501: 'Not Implemented',
  503: 'Service Unavailable' };

export function sendProblem(res, status, detail) {
  res.status(status).type('application/problem+json')
    .send(JSON.stringify({ type: 'about:blank', title: TITLES[status], status, detail }));
}

// What a route of the skeleton answers until it is written: `./testbed verify` lists each one.
export const notImplemented = (route) => (req, res) => sendProblem(res, 501, `not implemented yet: ${route}`);

export function noSuchEndpoint(req, res) {
  sendProblem(res, 404, 'no such endpoint');
}

// The one error middleware. Express 5 forwards rejected handler promises here.
export function problemHandler(error, req, res, next) {
  if (res.headersSent) return next(error);
  if (isUnreachable(error)) return sendProblem(res, 503, 'the database is unreachable');
  console.error(error);
  return sendProblem(res, 500, 'internal error');
}
