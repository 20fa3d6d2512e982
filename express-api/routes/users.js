import { Router } from 'express';
import { parseId, parseLimit, ID_RULE, LIMIT_RULE } from '../params.js';
import { badRequest, notFound, methodNotAllowed } from '../problems.js';

const noComments = (id) => notFound(`user ${id} has no comments`);

export function usersRouter(data) {
  const router = Router();

  router.route('/rest/user/:id/comment')
    .get(async (req, res) => {
      const id = parseId(req.params.id);
      if (id === null) throw badRequest(ID_RULE);
      const comment = await data.firstCommentByUserId(id);
      if (!comment) throw noComments(id);
      res.json(comment);
    })
    .all(methodNotAllowed('GET'));

  router.route('/rest/user/:id/comments/:limit')
    .get(async (req, res) => {
      const id = parseId(req.params.id);
      if (id === null) throw badRequest(ID_RULE);
      const limit = parseLimit(req.params.limit);
      if (limit === null) throw badRequest(LIMIT_RULE);
      const comments = await data.commentsByUserId(id, limit);
      if (comments.length === 0) throw noComments(id);
      res.json(comments);
    })
    .all(methodNotAllowed('GET'));

  return router;
}
