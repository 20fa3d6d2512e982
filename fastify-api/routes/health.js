import { resource } from './resource.js';

// Ready means "can reach the database" (rest.health), else the error handler answers 503.
export function healthRoutes(app, rest) {
  resource(app, '/healthz', ['GET'], () => rest.health());
}
