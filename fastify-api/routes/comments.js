import { parseId, parseLimit, ID_RULE, LIMIT_RULE } from '../params.js';
import { badRequest, notFound } from '../problems.js';
import { resource } from './resource.js';

export function commentRoutes(app, data) {
  resource(app, '/rest/comment/:id', ['GET'], async (request) => {
    const id = parseId(request.params.id);
    if (id === null) throw badRequest(ID_RULE);
    const comment = await data.commentById(id);
    if (!comment) throw notFound(`comment ${id} does not exist`);
    return comment;
  });

  resource(app, '/rest/comments/:limit', ['GET'], async (request) => {
    const limit = parseLimit(request.params.limit);
    if (limit === null) throw badRequest(LIMIT_RULE);
    return data.commentsByLimit(limit);
  });
}
