import { responseMediaType, isJsonContentType, readBody, checkRequestBody, sendRejection,
  sendGraphQL, errorObject, failureOf, JSON_TYPE, NOT_ACCEPTABLE, UNSUPPORTED_CONTENT_TYPE } from '../graphql/http.js';
import { MAX_BODY_BYTES } from '../config.js';
import { sendProblem } from '../problems.js';
import { resource } from './resource.js';

// POST /graphql: the contract's transport checks (graphql/http.js), then `execute`
// (graphql/execute.js, mercurius). The status follows from graphql-js's errors: a database error
// or a bug is a problem (failureOf); otherwise 200 when execution began (`data` present), and
// without it (parse, validation, limit, operation or variable errors) 200 for application/json,
// 400 for the GraphQL type.
export function graphqlRoutes(app, execute) {
  resource(app, '/graphql', ['POST'], async (request, reply) => {
    const mediaType = responseMediaType(request.headers.accept);
    if (mediaType === null) return sendRejection(reply, 406, JSON_TYPE, NOT_ACCEPTABLE);
    if (!isJsonContentType(request.declaredContentType)) {
      return sendRejection(reply, 415, mediaType, UNSUPPORTED_CONTENT_TYPE);
    }
    const checked = checkRequestBody(await readBody(request.raw, MAX_BODY_BYTES));
    if (!checked.params) return sendRejection(reply, checked.status, mediaType, checked.message);
    const result = await execute(checked.params);
    const errors = result.errors ?? [];
    const failure = failureOf(errors);
    if (failure) return sendProblem(reply, failure.status, failure.detail);
    const status = result.data !== undefined || mediaType === JSON_TYPE ? 200 : 400;
    return sendGraphQL(reply, status, mediaType, errors.map(errorObject), result.data);
  });
}
