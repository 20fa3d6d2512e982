import { Router } from 'express';
import { notImplemented } from '../problems.js';

// TODO: the contract's answers (contract/openapi.yaml, the SQL in docs/adding-a-framework.md):
// ids and limits by ^[1-9][0-9]*$, 400/404/405 problems, keys in the contract's order.
export function commentsRouter(pool) {
  const router = Router();
  router.get('/rest/comment/:id', notImplemented('GET /rest/comment/{id}'));
  router.get('/rest/comments/:limit', notImplemented('GET /rest/comments/{limit}'));
  return router;
}
