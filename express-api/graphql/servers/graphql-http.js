// graphql-http (express-graphql's maintained successor) behind the contract's transport checks.
// It parses, validates (the limits included) and executes, and writes the response body itself;
// what the contract fixes on top of it is handed in through its own options.
import { execute, GraphQLError } from 'graphql';
import { createHandler } from 'graphql-http';
import { createContext } from 'forum-node-common/graphql/context.js';
import { queryLimits } from 'forum-node-common/graphql/limits.js';
import { errorObject, failureOf } from 'forum-node-common/graphql/http.js';
import { sendProblem } from '../../problems.js';

// graphql 16, which graphql-http is written for, answers an operation the schema has no root type
// for (a mutation here) with { errors }; graphql 15 throws it, which would reject graphql-http's
// whole handler. Reported as graphql 16 (and express-graphql) report it: no data, that error.
function executeReportingRootErrors(args) {
  try {
    return execute(args);
  } catch (error) {
    if (!(error instanceof GraphQLError)) throw error;
    return { errors: [error] };
  }
}

// Serves one checked request: params are the body's { query, variables, operationName }.
export function createExecutor(schema, data, limits) {
  const handle = createHandler({
    schema,
    context: () => createContext(data),
    validationRules: (req, args, specifiedRules) =>
      [...specifiedRules, queryLimits(limits, args.variableValues)],
    execute: executeReportingRootErrors,
    // routes/graphql.js already read and checked the body by the contract's rules, which are not
    // graphql-http's (e.g. Content-Type parameters); its params go in as they passed.
    parseRequestParams: (req) => req.body,
    onOperation: (req, args, result) => {
      // A database or internal error becomes a problem, not a GraphQL body (failureOf).
      req.context.failure = failureOf(result.errors ?? []);
      // graphql-http answers an execution result without data (a variable that fails to coerce, a
      // mutation) with 200 whatever the media type; handed back as bare errors, it gets a request
      // error's status, 200 as application/json and 400 as the GraphQL type, as the contract says.
      return result.data === undefined ? result.errors : undefined;
    },
    formatError: errorObject,
  });
  return async (req, res, mediaType, params) => {
    // Accept was negotiated by the contract's rules (q values included, which graphql-http does
    // not weigh): it is given only the media type they chose, so it picks that one.
    const request = { method: 'POST', url: req.url, headers: { accept: mediaType }, body: params,
      raw: req, context: { failure: null } };
    const [body, init] = await handle(request);
    const { failure } = request.context;
    if (failure) return sendProblem(res, failure.status, failure.detail);
    // Its status (200, or 400 for graphql-response+json without data) and Content-Type are the
    // contract's; Express adds only Content-Length, as for every other response.
    return res.status(init.status).set('Content-Type', init.headers['content-type']).send(body);
  };
}
