import { checkGraphqlRequest, graphqlAnswer } from 'forum-node-common/graphql/http.js';
import { sendProblem } from '../problems.js';
import { resource } from './resource.js';

// A GraphQL body (forum-node-common/graphql/http.js) as the chosen media type with its charset.
function sendGraphQL(reply, status, mediaType, body) {
  return reply.code(status).type(`${mediaType}; charset=utf-8`).send(body);
}

// POST /graphql: the contract's transport checks, then `execute` (graphql/execute.js, mercurius);
// the status and body follow from graphql-js's errors (graphqlAnswer).
export function graphqlRoutes(app, execute) {
  resource(app, '/graphql', ['POST'], async (request, reply) => {
    const checked = await checkGraphqlRequest(request.headers.accept, request.declaredContentType,
      request.raw);
    if (!checked.params) return sendGraphQL(reply, checked.status, checked.mediaType, checked.body);
    const answer = graphqlAnswer(checked.mediaType, await execute(checked.params));
    if (answer.problem) return sendProblem(reply, answer.problem.status, answer.problem.detail);
    return sendGraphQL(reply, answer.status, checked.mediaType, answer.body);
  });
}
