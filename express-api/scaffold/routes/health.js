import { Router } from 'express';

// Ready means "can reach the database": SELECT 1 succeeds, else the error middleware answers 503.
export function healthRouter(pool) {
  const router = Router();
  router.get('/healthz', async (req, res) => {
    await pool.query('SELECT 1');
    res.json({ status: 'ok' });
  });
  return router;
}
