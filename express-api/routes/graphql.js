import { Router } from 'express';
import { checkGraphqlRequest } from 'forum-node-common/graphql/http.js';
import { createSchema } from '../graphql/schema.js';
import { sendGraphQL } from '../graphql/send.js';
import { methodNotAllowed } from '../problems.js';

// POST /graphql: the contract's transport checks (forum-node-common/graphql/http.js), the same
// whichever GraphQL server library then executes the request (`server`: a module of graphql/servers/).
export function graphqlRouter(data, limits, server) {
  const execute = server.createExecutor(createSchema(), data, limits);
  const router = Router();
  router.route('/graphql')
    .post(async (req, res) => {
      const checked = await checkGraphqlRequest(req.get('accept'), req.get('content-type'), req);
      if (!checked.params) return sendGraphQL(res, checked.status, checked.mediaType, checked.body);
      return execute(req, res, checked.mediaType, checked.params);
    })
    .all(methodNotAllowed('POST'));
  return router;
}
