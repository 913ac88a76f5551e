import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { AggregatorRegistry } from 'prom-client';
import type { LedgerConfig } from '../config';
import { COLLECT_TIMEOUT_MS, isMessage, METRICS_COLLECT, METRICS_COLLECTED, METRICS_REPLY, METRICS_REQUEST } from './cluster-metrics';
import { startConfiguredEmbeddedPostgres } from './runtime';

/**
 * LEDGER_WORKERS > 1: one primary process and that many worker processes sharing the HTTP port (node:cluster hands each
 * new connection to the next worker). Each worker is a whole instance of the service, exactly as several instances on
 * one database are (README, "Several instances"): every write of every worker serialises on the `ledger_head` row lock,
 * and workers learn of each other's commits through LISTEN/NOTIFY. What more workers buy is CPU for the per-request work
 * (HTTP, decoding, hashing, signature checks), which one Node.js event loop does on one core.
 *
 * The primary serves no requests. It starts the embedded PostgreSQL when there is no DATABASE_URL (the workers get its
 * URL), forks the workers one after the other (the first start creates the participant's identity and runs the
 * migrations; the next ones find them), replaces a worker that dies, answers the workers' /metrics with the sum over all
 * of them, and on SIGTERM/SIGINT lets every worker drain (their own graceful shutdown), then stops the database.
 */


/**
 * A worker that dies while serving is replaced after this pause. One that dies before it listens (a bad configuration, an
 * unreachable database) is not: the primary stops, with an error, as a single process would.
 */
const RESTART_DELAY_MS = 1000;
const DRAIN_TIMEOUT_MS = 20_000;

export async function runClusterPrimary(config: LedgerConfig, logger: Logger): Promise<void> {
  // The workers get the embedded database's URL as their DATABASE_URL.
  const embedded = config.databaseUrl ? null : await startConfiguredEmbeddedPostgres(config, logger);
  const url = config.databaseUrl ?? embedded!.url;

  const workers = new Map<number, Worker>(); // slot → its current process
  let stopping = false;
  let failed = false;
  let collectSeq = 0;
  const collections = new Map<number, { pending: Set<number>; metrics: unknown[][]; done: () => void }>();

  /** The metrics of every live worker, summed (prom-client's cluster aggregation: counters and histograms add up). */
  const collect = async (): Promise<string> => {
    const id = ++collectSeq;
    const live = [...workers.values()].filter((w) => w.isConnected());
    const entry = { pending: new Set(live.map((w) => w.id)), metrics: [] as unknown[][], done: () => undefined as void };
    const finished = new Promise<void>((resolve) => (entry.done = resolve));
    collections.set(id, entry);
    for (const w of live) w.send({ type: METRICS_COLLECT, id });
    if (entry.pending.size === 0) entry.done();
    const timer = setTimeout(() => entry.done(), COLLECT_TIMEOUT_MS);
    await finished;
    clearTimeout(timer);
    collections.delete(id);
    return AggregatorRegistry.aggregate(entry.metrics as never).metrics();
  };

  const onMessage = (w: Worker, m: unknown) => {
    if (!isMessage(m)) return;
    if (m.type === METRICS_COLLECTED) {
      const entry = collections.get(m.id);
      if (!entry || !entry.pending.delete(w.id)) return;
      if (Array.isArray(m.metrics)) entry.metrics.push(m.metrics);
      if (entry.pending.size === 0) entry.done();
    } else if (m.type === METRICS_REQUEST) {
      collect().then(
        (text) => w.isConnected() && w.send({ type: METRICS_REPLY, id: m.id, text }),
        (e: Error) => w.isConnected() && w.send({ type: METRICS_REPLY, id: m.id, error: e.message }),
      );
    }
  };

  /** Starts the worker of `slot`; resolves once it listens, rejects if it exits first. */
  const fork = (slot: number): Promise<Worker> =>
    new Promise((resolve, reject) => {
      const w = cluster.fork({ DATABASE_URL: url, LEDGER_WORKER_SLOT: String(slot) });
      workers.set(slot, w);
      let listening = false;
      w.on('message', (m) => onMessage(w, m));
      w.once('listening', () => {
        listening = true;
        resolve(w);
      });
      w.once('exit', (code, signal) => {
        if (workers.get(slot) === w) workers.delete(slot);
        for (const entry of collections.values()) if (entry.pending.delete(w.id) && entry.pending.size === 0) entry.done();
        if (!listening) {
          reject(new Error(`worker ${slot} exited during start-up (${signal ?? code})`));
          return;
        }
        if (stopping) {
          if (code !== 0) failed = true;
          return;
        }
        logger.error({ worker: slot, pid: w.process.pid, code, signal }, 'worker exited: starting a new one');
        setTimeout(() => {
          if (stopping) return;
          fork(slot).then(
            (nw) => logger.info({ worker: slot, pid: nw.process.pid }, 'worker replaced'),
            (e: Error) => {
              logger.error({ err: e }, 'could not replace a worker: stopping');
              void shutdown('worker restart failed', 1);
            },
          );
        }, RESTART_DELAY_MS);
      });
    });

  const shutdown = async (signal: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    if (code !== 0) failed = true;
    logger.info({ signal }, 'shutting down: each worker finishes its in-flight requests');
    const force = setTimeout(() => {
      logger.error('workers did not stop in time: killing them');
      for (const w of workers.values()) w.process.kill('SIGKILL');
    }, DRAIN_TIMEOUT_MS);
    await Promise.all(
      [...workers.values()].map(
        (w) =>
          new Promise<void>((resolve) => {
            if (w.isDead()) return resolve();
            w.once('exit', () => resolve());
            w.process.kill('SIGTERM');
          }),
      ),
    );
    clearTimeout(force);
    await embedded?.stop().catch((e: Error) => logger.error({ err: e }, 'stopping the embedded PostgreSQL failed'));
    process.exit(failed ? 1 : 0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  try {
    for (let slot = 0; slot < config.workers; slot++) await fork(slot);
  } catch (e) {
    stopping = true;
    for (const w of workers.values()) w.process.kill('SIGTERM');
    await embedded?.stop().catch(() => undefined);
    throw e;
  }
  logger.info(
    { port: config.port, workers: [...workers.values()].map((w) => w.process.pid) },
    `Ledgerline listening on http://${config.host}:${config.port} with ${config.workers} workers`,
  );
}
