// RFC 9457 problem bodies: the only error shape the REST API (and GraphQL's 405/413/503/500) sends.
import { isUnreachable } from './db.js';

const TITLES = {
  400: 'Bad Request',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Payload Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export class Problem extends Error {
  constructor(status, detail, headers = {}) {
    super(detail);
    this.status = status;
    this.detail = detail;
    this.headers = headers;
  }
}

export const badRequest = (detail) => new Problem(400, detail);
export const notFound = (detail) => new Problem(404, detail);
export const UNREACHABLE_DETAIL = 'the database is unreachable';

export function sendProblem(res, status, detail, headers = {}) {
  const title = TITLES[status] ?? (status < 500 ? 'Bad Request' : 'Internal Server Error');
  res.status(status).set(headers).type('application/problem+json')
    .send(JSON.stringify({ type: 'about:blank', title, status, detail }));
}

// A route that exists but not for this method.
export function methodNotAllowed(allow) {
  return (req, res) => sendProblem(res, 405, 'method not allowed', { Allow: allow });
}

export function noSuchEndpoint(req, res) {
  sendProblem(res, 404, 'no such endpoint');
}

// The one error middleware. Express 5 forwards rejected handler promises here.
export function problemHandler(error, req, res, next) {
  if (res.headersSent) return next(error);
  if (error instanceof Problem) return sendProblem(res, error.status, error.detail, error.headers);
  if (isUnreachable(error)) return sendProblem(res, 503, UNREACHABLE_DETAIL);
  // Express's own client errors carry a 4xx status.
  if (error.status >= 400 && error.status < 500) {
    return sendProblem(res, error.status, error.message);
  }
  console.error(error);
  return sendProblem(res, 500, 'internal error');
}
