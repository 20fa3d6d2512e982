import { Router } from 'express';
import { notImplemented } from '../problems.js';

// TODO: POST /graphql as contract/README.md states it (GraphQL-over-HTTP, the request checks, the
// depth, field and comment limits, one batched user query per request) over contract/schema.graphql.
export function graphqlRouter(pool) {
  const router = Router();
  router.post('/graphql', notImplemented('POST /graphql'));
  return router;
}
