import { Router } from 'express';

// Ready means "can reach the database" (rest.health), else the error middleware answers 503.
export function healthRouter(rest) {
  const router = Router();
  router.get('/healthz', async (req, res) => res.json(await rest.health()));
  return router;
}
