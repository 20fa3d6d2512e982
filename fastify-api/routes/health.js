import { resource } from './resource.js';

// Ready means "can reach the database": SELECT 1 succeeds, else the error handler answers 503.
export function healthRoutes(app, data) {
  resource(app, '/healthz', ['GET'], async () => {
    await data.ping();
    return { status: 'ok' };
  });
}
