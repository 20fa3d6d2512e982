import { Router } from 'express';
import { methodNotAllowed } from '../problems.js';

// rest: forum-node-common/rest.js's endpoints over the app's data.
export function commentsRouter(rest) {
  const router = Router();
  router.route('/rest/comment/:id')
    .get(async (req, res) => res.json(await rest.commentById(req.params)))
    .all(methodNotAllowed('GET'));
  router.route('/rest/comments/:limit')
    .get(async (req, res) => res.json(await rest.commentsByLimit(req.params)))
    .all(methodNotAllowed('GET'));
  return router;
}
