import { Router } from 'express';
import { Problem } from 'forum-node-common/problems.js';
import { methodNotAllowed } from '../problems.js';

// Ready means "every process that will serve is listening" (`started()`: always true for one
// process, see server.js for the cluster) and "can reach the database" (rest.health).
export function healthRouter(rest, started) {
  const router = Router();
  router.route('/healthz')
    .get(async (req, res) => {
      if (!started()) throw new Problem(503, 'starting: not every cluster worker listens yet');
      res.json(await rest.health());
    })
    .all(methodNotAllowed('GET'));
  return router;
}
