// express-graphql 0.12 (the study's GraphQL server) behind the contract's transport checks.
import { graphqlHTTP } from 'express-graphql';
import { createContext } from '../context.js';
import { queryLimits } from '../limits.js';
import { errorObject, failureOf, sendGraphQL, JSON_TYPE } from '../http.js';
import { sendProblem } from '../../problems.js';

// express-graphql ends every request, whatever happened, with res.json(result); result.errors are
// graphql-js's own errors (see customFormatErrorFn), so their causes tell what happened (failureOf);
// otherwise `data` says whether execution began: 200 with it, and without it (parse, validation,
// limit, operation or variable errors) 200 for application/json, 400 for the GraphQL type.
// The status express-graphql chose is ignored, and none of its own texts can reach a client: the
// request checks before it leave nothing for them.
function respond(res, mediaType, result) {
  const errors = result.errors ?? [];
  const failure = failureOf(errors);
  if (failure) return sendProblem(res, failure.status, failure.detail);
  const executed = result.data !== undefined;
  const status = executed || mediaType === JSON_TYPE ? 200 : 400;
  return sendGraphQL(res, status, mediaType, errors.map(errorObject), result.data);
}

// Serves one checked request: params are the body's { query, variables, operationName }.
export function createExecutor(schema, data, limits) {
  const execute = graphqlHTTP((req, res, params) => ({
    schema,
    context: createContext(data),
    graphiql: false,
    validationRules: [queryLimits(limits, params.variables)],
    customFormatErrorFn: (error) => error,
  }));
  return (req, res, mediaType, params) => {
    req.body = params;
    // express-graphql takes query, variables and operationName from the URL before the body;
    // the contract reads the body alone.
    req.url = req.path;
    res.json = (result) => respond(res, mediaType, result);
    return execute(req, res);
  };
}
