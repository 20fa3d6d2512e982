// express-graphql 0.12 (the study's GraphQL server) behind the contract's transport checks.
import { graphqlHTTP } from 'express-graphql';
import { createContext } from 'forum-node-common/graphql/context.js';
import { queryLimits } from 'forum-node-common/graphql/limits.js';
import { graphqlAnswer } from 'forum-node-common/graphql/http.js';
import { sendGraphQL } from '../send.js';
import { sendProblem } from '../../problems.js';

// express-graphql ends every request, whatever happened, with res.json(result); result.errors are
// graphql-js's own errors (see customFormatErrorFn), so the contract's status and body follow from
// them (graphqlAnswer). The status express-graphql chose is ignored, and none of its own texts can
// reach a client: the request checks before it leave nothing for them.
function respond(res, mediaType, result) {
  const answer = graphqlAnswer(mediaType, result);
  if (answer.problem) return sendProblem(res, answer.problem.status, answer.problem.detail);
  return sendGraphQL(res, answer.status, mediaType, answer.body);
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
