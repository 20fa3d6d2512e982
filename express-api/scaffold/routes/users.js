import { Router } from 'express';
import { notImplemented } from '../problems.js';

// TODO: the contract's answers (contract/openapi.yaml, the SQL in docs/adding-a-framework.md):
// one statement per request (a join), 404 for a user without comments.
export function usersRouter(pool) {
  const router = Router();
  router.get('/rest/user/:id/comment', notImplemented('GET /rest/user/{id}/comment'));
  router.get('/rest/user/:id/comments/:limit', notImplemented('GET /rest/user/{id}/comments/{limit}'));
  return router;
}
