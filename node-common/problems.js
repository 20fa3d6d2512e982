// RFC 9457 problem bodies: the only error shape the REST API (and GraphQL's 405/413/503/500)
// sends. The app's error handler sends what problemFor decides, in its framework's way.
import { isUnreachable } from './db.js';

const TITLES = {
  400: 'Bad Request',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Payload Too Large',
  500: 'Internal Server Error',
  // What a scaffold's routes answer until they are written (express-api/scaffold/).
  501: 'Not Implemented',
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
export const NO_SUCH_ENDPOINT = 'no such endpoint';
export const METHOD_NOT_ALLOWED = 'method not allowed';

export function problemBody(status, detail) {
  const title = TITLES[status] ?? (status < 500 ? 'Bad Request' : 'Internal Server Error');
  return JSON.stringify({ type: 'about:blank', title, status, detail });
}

// What the one error handler answers for `error`, which handlers threw or rejected with: a
// Problem as it is, an unreachable database as a 503, the framework's own client error (its 4xx
// `clientStatus`) with its message, and anything else, a bug, as a 500 (logged).
export function problemFor(error, clientStatus) {
  if (error instanceof Problem) return error;
  if (isUnreachable(error)) return new Problem(503, UNREACHABLE_DETAIL);
  if (clientStatus >= 400 && clientStatus < 500) return new Problem(clientStatus, error.message);
  console.error(error);
  return new Problem(500, 'internal error');
}
