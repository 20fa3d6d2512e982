import { Router } from 'express';
import { methodNotAllowed, Problem } from '../problems.js';

// Ready means "every process that will serve is listening" (`started()`: always true for one
// process, see server.js for the cluster) and "can reach the database": SELECT 1 succeeds, else
// the error middleware answers 503.
export function healthRouter(data, started) {
  const router = Router();
  router.route('/healthz')
    .get(async (req, res) => {
      if (!started()) throw new Problem(503, 'starting: not every cluster worker listens yet');
      await data.ping();
      res.json({ status: 'ok' });
    })
    .all(methodNotAllowed('GET'));
  return router;
}
