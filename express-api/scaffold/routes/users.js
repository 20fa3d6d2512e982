import { Router } from 'express';
import { notImplemented } from '../problems.js';

// TODO: the contract's answers (contract/openapi.yaml): rest.firstCommentByUserId(req.params) and
// rest.commentsByUserId(req.params) (forum-node-common/rest.js): one statement per request (a join),
// 404 for a user without comments; a wrong method is a 405 problem.
export function usersRouter(rest) {
  const router = Router();
  router.get('/rest/user/:id/comment', notImplemented('GET /rest/user/{id}/comment'));
  router.get('/rest/user/:id/comments/:limit', notImplemented('GET /rest/user/{id}/comments/{limit}'));
  return router;
}
