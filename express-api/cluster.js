// The cluster variant: this primary forks one worker per core, each running server.js unchanged
// with its share of the database pool, and does no HTTP itself. Node's default scheduling on
// Linux is round-robin: the primary accepts each connection and hands it to the next worker,
// which then serves every request on it (the load plans keep their connections alive).
import cluster from 'node:cluster';
import { fileURLToPath } from 'node:url';
import { loadConfigOrExit } from './config.js';
import { workerCount, poolShares, ALL_WORKERS_LISTEN } from './cluster-plan.js';

// A bad setting stops start-up here, with one line, before any worker exists.
const config = loadConfigOrExit();
const workers = workerCount(config.poolSize);
const shares = poolShares(config.poolSize, workers);

cluster.setupPrimary({ exec: fileURLToPath(new URL('./server.js', import.meta.url)) });
console.log(`express-api: cluster primary (pid ${process.pid}) forking ${workers} workers, `
  + `database pool ${shares.join(' + ')} = ${config.poolSize} connections`);
for (const share of shares) {
  cluster.fork({ DB_POOL_SIZE: String(share), CLUSTER_WORKERS: String(workers) });
}

// Ready only when every worker listens (server.js): each worker's /healthz is 503 until this.
let listening = 0;
cluster.on('listening', () => {
  listening += 1;
  if (listening !== workers) return;
  for (const worker of Object.values(cluster.workers)) worker.send(ALL_WORKERS_LISTEN);
});

let alive = workers;
let stopping = false;
let exitStatus = 0;

function stop(status) {
  exitStatus = Math.max(exitStatus, status);
  if (stopping) return;
  stopping = true;
  for (const worker of Object.values(cluster.workers)) {
    if (!worker.isDead()) worker.process.kill('SIGTERM');
  }
}

// A worker that dies while serving is not replaced: a run should see the failure, not measure a
// smaller cluster. It stops the others, and the primary exits with status 1.
cluster.on('exit', (worker, code, signal) => {
  alive -= 1;
  if (!stopping) {
    console.error(`express-api: worker pid ${worker.process.pid} exited `
      + `(${signal ?? `status ${code}`}); stopping the cluster`);
    stop(1);
  }
  if (alive === 0) process.exit(exitStatus);
});

// The run engine signals the whole process group; a signal to the primary alone is passed on.
process.on('SIGTERM', () => stop(0));
process.on('SIGINT', () => stop(0));
