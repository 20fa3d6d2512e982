import { Router } from 'express';
import { notImplemented } from '../problems.js';

// TODO: POST /graphql as contract/README.md states it, over contract/schema.graphql. What every Node
// app does alike is in forum-node-common/graphql/ (add graphql to package.json to use it): the
// transport's checks and the answer's status and body (http.js), the resolvers (resolvers.js), the
// per-request batching of users (context.js) and the depth, field and comment limits (limits.js).
export function graphqlRouter(data) {
  const router = Router();
  router.post('/graphql', notImplemented('POST /graphql'));
  return router;
}
