import { Router } from 'express';
import { graphqlHTTP } from 'express-graphql';
import { GraphQLError } from 'graphql';
import { createSchema } from '../graphql/schema.js';
import { createContext } from '../graphql/context.js';
import { queryLimits } from '../graphql/limits.js';
import { responseMediaType, isJsonContentType, readBody, checkRequestBody, errorObject,
  sendGraphQL, sendRejection, JSON_TYPE, NOT_ACCEPTABLE, UNSUPPORTED_CONTENT_TYPE } from '../graphql/http.js';
import { MAX_BODY_BYTES } from '../config.js';
import { isUnreachable } from '../db.js';
import { methodNotAllowed, sendProblem, UNREACHABLE_DETAIL } from '../problems.js';

// express-graphql ends every request, whatever happened, with res.json(result); result.errors are
// graphql-js's own errors (see customFormatErrorFn), so their causes tell what happened:
// - a cause that is not a GraphQLError: the database (503) or a bug (500), never the client;
// - otherwise `data` says whether execution began: 200 with it, and without it (parse, validation,
//   limit, operation or variable errors) 200 for application/json, 400 for the GraphQL type.
// The status express-graphql chose is ignored, and none of its own texts can reach a client: the
// request checks before it leave nothing for them.
function respond(res, mediaType, result) {
  const errors = result.errors ?? [];
  const causes = errors.map((error) => error.originalError)
    .filter((cause) => cause != null && !(cause instanceof GraphQLError));
  if (causes.some(isUnreachable)) return sendProblem(res, 503, UNREACHABLE_DETAIL);
  if (causes.length > 0) {
    console.error(causes[0]);
    return sendProblem(res, 500, 'internal error');
  }
  const executed = result.data !== undefined;
  const status = executed || mediaType === JSON_TYPE ? 200 : 400;
  return sendGraphQL(res, status, mediaType, errors.map(errorObject), result.data);
}

export function graphqlRouter(data, limits) {
  const schema = createSchema();
  const execute = graphqlHTTP((req, res, params) => ({
    schema,
    context: createContext(data),
    graphiql: false,
    validationRules: [queryLimits(limits, params.variables)],
    customFormatErrorFn: (error) => error,
  }));

  const router = Router();
  router.route('/graphql')
    .post(async (req, res) => {
      const mediaType = responseMediaType(req.get('accept'));
      if (mediaType === null) return sendRejection(res, 406, JSON_TYPE, NOT_ACCEPTABLE);
      if (!isJsonContentType(req.get('content-type'))) {
        return sendRejection(res, 415, mediaType, UNSUPPORTED_CONTENT_TYPE);
      }
      const checked = checkRequestBody(await readBody(req, MAX_BODY_BYTES));
      if (!checked.params) return sendRejection(res, checked.status, mediaType, checked.message);
      req.body = checked.params;
      // express-graphql takes query, variables and operationName from the URL before the body;
      // the contract reads the body alone.
      req.url = req.path;
      res.json = (result) => respond(res, mediaType, result);
      return execute(req, res);
    })
    .all(methodNotAllowed('POST'));
  return router;
}
