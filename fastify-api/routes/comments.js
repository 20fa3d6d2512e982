import { resource } from './resource.js';

// rest: forum-node-common/rest.js's endpoints over the app's data.
export function commentRoutes(app, rest) {
  resource(app, '/rest/comment/:id', ['GET'], (request) => rest.commentById(request.params));
  resource(app, '/rest/comments/:limit', ['GET'], (request) => rest.commentsByLimit(request.params));
}
