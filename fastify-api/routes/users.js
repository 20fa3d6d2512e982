import { parseId, parseLimit, ID_RULE, LIMIT_RULE } from '../params.js';
import { badRequest, notFound } from '../problems.js';
import { resource } from './resource.js';

const noComments = (id) => notFound(`user ${id} has no comments`);

export function userRoutes(app, data) {
  resource(app, '/rest/user/:id/comment', ['GET'], async (request) => {
    const id = parseId(request.params.id);
    if (id === null) throw badRequest(ID_RULE);
    const comment = await data.firstCommentByUserId(id);
    if (!comment) throw noComments(id);
    return comment;
  });

  resource(app, '/rest/user/:id/comments/:limit', ['GET'], async (request) => {
    const id = parseId(request.params.id);
    if (id === null) throw badRequest(ID_RULE);
    const limit = parseLimit(request.params.limit);
    if (limit === null) throw badRequest(LIMIT_RULE);
    const comments = await data.commentsByUserId(id, limit);
    if (comments.length === 0) throw noComments(id);
    return comments;
  });
}
