import { resource } from './resource.js';

// rest: forum-node-common/rest.js's endpoints over the app's data.
export function userRoutes(app, rest) {
  resource(app, '/rest/user/:id/comment', ['GET'], (request) => rest.firstCommentByUserId(request.params));
  resource(app, '/rest/user/:id/comments/:limit', ['GET'], (request) => rest.commentsByUserId(request.params));
}
