import { Router } from 'express';
import { methodNotAllowed } from '../problems.js';

// Ready means "can reach the database": SELECT 1 succeeds, else the error middleware answers 503.
export function healthRouter(data) {
  const router = Router();
  router.route('/healthz')
    .get(async (req, res) => {
      await data.ping();
      res.json({ status: 'ok' });
    })
    .all(methodNotAllowed('GET'));
  return router;
}
