import { Router } from 'express';
import { methodNotAllowed } from '../problems.js';

// rest: forum-node-common/rest.js's endpoints over the app's data.
export function usersRouter(rest) {
  const router = Router();
  router.route('/rest/user/:id/comment')
    .get(async (req, res) => res.json(await rest.firstCommentByUserId(req.params)))
    .all(methodNotAllowed('GET'));
  router.route('/rest/user/:id/comments/:limit')
    .get(async (req, res) => res.json(await rest.commentsByUserId(req.params)))
    .all(methodNotAllowed('GET'));
  return router;
}
