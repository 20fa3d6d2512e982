import { Router } from 'express';
import { notImplemented } from '../problems.js';

// TODO: the contract's answers (contract/openapi.yaml): rest.commentById(req.params) and
// rest.commentsByLimit(req.params) (forum-node-common/rest.js) check the id or limit, run the SQL and
// give the object to send as JSON, or throw the 400/404 problem; a wrong method is a 405 problem.
export function commentsRouter(rest) {
  const router = Router();
  router.get('/rest/comment/:id', notImplemented('GET /rest/comment/{id}'));
  router.get('/rest/comments/:limit', notImplemented('GET /rest/comments/{limit}'));
  return router;
}
