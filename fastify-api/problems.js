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

// The body is a finished string with its charset spelled out, so Fastify sends it as is.
export function sendProblem(reply, status, detail, headers = {}) {
  const title = TITLES[status] ?? (status < 500 ? 'Bad Request' : 'Internal Server Error');
  return reply.code(status).headers(headers).type('application/problem+json; charset=utf-8')
    .send(JSON.stringify({ type: 'about:blank', title, status, detail }));
}

export function noSuchEndpoint(request, reply) {
  return sendProblem(reply, 404, 'no such endpoint');
}

// The one error handler: handlers throw (or reject with) a Problem, a database error or a bug.
export function problemHandler(error, request, reply) {
  if (error instanceof Problem) return sendProblem(reply, error.status, error.detail, error.headers);
  if (isUnreachable(error)) return sendProblem(reply, 503, UNREACHABLE_DETAIL);
  // Fastify's own client errors carry a 4xx status code.
  if (error.statusCode >= 400 && error.statusCode < 500) {
    return sendProblem(reply, error.statusCode, error.message);
  }
  console.error(error);
  return sendProblem(reply, 500, 'internal error');
}
