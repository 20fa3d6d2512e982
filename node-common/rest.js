// The REST endpoints' work apart from routing and sending: the path parameters (as the router
// matched them, still text) checked by the id and limit rules, the statement, and the 400 or 404
// problem. Each returns the object to send as JSON, or throws a Problem for the error handler.
import { parseId, parseLimit, ID_RULE, LIMIT_RULE } from './params.js';
import { badRequest, notFound } from './problems.js';

const noComments = (id) => notFound(`user ${id} has no comments`);

function id(text) {
  const value = parseId(text);
  if (value === null) throw badRequest(ID_RULE);
  return value;
}

function limit(text) {
  const value = parseLimit(text);
  if (value === null) throw badRequest(LIMIT_RULE);
  return value;
}

export function restEndpoints(data) {
  return {
    // GET /rest/comment/:id
    async commentById(params) {
      const commentId = id(params.id);
      const comment = await data.commentById(commentId);
      if (!comment) throw notFound(`comment ${commentId} does not exist`);
      return comment;
    },
    // GET /rest/comments/:limit
    async commentsByLimit(params) {
      return data.commentsByLimit(limit(params.limit));
    },
    // GET /rest/user/:id/comment
    async firstCommentByUserId(params) {
      const userId = id(params.id);
      const comment = await data.firstCommentByUserId(userId);
      if (!comment) throw noComments(userId);
      return comment;
    },
    // GET /rest/user/:id/comments/:limit: the id is checked first, so that it is the one reported
    // when both break their rules.
    async commentsByUserId(params) {
      const userId = id(params.id);
      const comments = await data.commentsByUserId(userId, limit(params.limit));
      if (comments.length === 0) throw noComments(userId);
      return comments;
    },
    // GET /healthz: ready means "can reach the database" (SELECT 1), else the error handler's 503.
    async health() {
      await data.ping();
      return { status: 'ok' };
    },
  };
}
