// How cluster.js divides the app: one worker per core it may use, and the database pool split
// among them so that all workers together open at most as many connections as one process would.
import { availableParallelism } from 'node:os';

// availableParallelism() honours the CPU affinity a run pins the app to. Never more workers than
// connections, so that each has at least one.
export function workerCount(poolSize, cores = availableParallelism()) {
  return Math.max(1, Math.min(cores, poolSize));
}

// Each worker's pool: the total divided evenly, the first ones taking one more when it does not
// divide (100 over 3: 34, 33, 33), so that the shares add up to the total exactly.
export function poolShares(total, workers) {
  const base = Math.floor(total / workers);
  return Array.from({ length: workers }, (_, i) => base + (i < total % workers ? 1 : 0));
}

// What the primary tells every worker once all of them listen; until then their /healthz is 503.
export const ALL_WORKERS_LISTEN = 'testbed: all workers listen';
