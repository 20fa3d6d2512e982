import { Router } from 'express';
import { parseId, parseLimit, ID_RULE, LIMIT_RULE } from '../params.js';
import { badRequest, notFound, methodNotAllowed } from '../problems.js';

export function commentsRouter(data) {
  const router = Router();

  router.route('/rest/comment/:id')
    .get(async (req, res) => {
      const id = parseId(req.params.id);
      if (id === null) throw badRequest(ID_RULE);
      const comment = await data.commentById(id);
      if (!comment) throw notFound(`comment ${id} does not exist`);
      res.json(comment);
    })
    .all(methodNotAllowed('GET'));

  router.route('/rest/comments/:limit')
    .get(async (req, res) => {
      const limit = parseLimit(req.params.limit);
      if (limit === null) throw badRequest(LIMIT_RULE);
      res.json(await data.commentsByLimit(limit));
    })
    .all(methodNotAllowed('GET'));

  return router;
}
