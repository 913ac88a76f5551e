import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { AggregatorRegistry } from 'prom-client';
import type { LedgerConfig } from '../config';
import {
  COLLECT_TIMEOUT_MS,
  isMessage,
  METRICS_COLLECT,
  METRICS_COLLECTED,
  METRICS_REPLY,
  METRICS_REQUEST,
} from './cluster-metrics';
import { startConfiguredEmbeddedPostgres } from './runtime';

/**
 * LEDGER_WORKERS > 1: one primary process and that many worker processes sharing the HTTP port (node:cluster hands each
 * new connection to the next worker). Each worker is a whole instance of the service, exactly as several instances on
 * one database are (README, "Several instances"): every write of every worker serialises on the `ledger_head` row lock,
 * and workers learn of each other's commits through LISTEN/NOTIFY. What more workers buy is CPU for the per-request work
 * (HTTP, decoding, hashing, signature checks), which one Node.js event loop does on one core.
 *
 * The primary runs no request handlers: it accepts connections and hands each to the next worker (node:cluster's
 * round-robin). It starts the embedded PostgreSQL when there is no DATABASE_URL (the workers get its URL), forks the
 * workers one after the other (the first start creates the participant's identity and runs the migrations; the next ones
 * find them), replaces a worker that dies, answers the workers' /metrics with every worker's series (label `worker`),
 * and on SIGTERM/SIGINT lets every worker drain (their own graceful shutdown), then stops the database.
 */

/**
 * A worker that dies while serving is replaced after a pause: 1 s, doubling (up to 30 s) while replacements keep dying
 * within a minute. A replacement that cannot start is retried the same way; after 5 failed starts in a row the primary
 * stops the service. At the first start there is no retry: a worker that dies before it listens (a bad configuration,
 * an unreachable database) stops the service with an error, as a single process would.
 */
const RESTART_DELAY_MS = 1000;
const MAX_RESTART_DELAY_MS = 30_000;
const STABLE_AFTER_MS = 60_000;
const MAX_FAILED_STARTS = 5;
const DRAIN_TIMEOUT_MS = 20_000;
/** How the primary tells a worker its slot: in the environment cluster.fork gives it (not configuration). */
const WORKER_SLOT_ENV = 'LEDGER_WORKER_SLOT';

/** In a worker process: the slot the primary forked it for (a replacement keeps its predecessor's slot). */
export function clusterWorkerSlot(): number | undefined {
  // eslint-disable-next-line no-restricted-properties -- the primary's hand-over to its own worker, not configuration
  const slot = process.env[WORKER_SLOT_ENV];
  return slot === undefined ? undefined : Number(slot);
}

export async function runClusterPrimary(config: LedgerConfig, logger: Logger): Promise<void> {
  // The workers get the embedded database's URL as their DATABASE_URL.
  const embedded = config.databaseUrl ? null : await startConfiguredEmbeddedPostgres(config, logger);
  const url = config.databaseUrl ?? embedded!.url;

  const workers = new Map<number, Worker>(); // slot → its current process
  let stopping = false;
  let failed = false;
  let collectSeq = 0;
  /** The collection under way (one at a time); replies carrying another id are late answers to a finished one. */
  let current: { id: number; pending: Set<number>; metrics: unknown[][]; done: () => void } | null = null;
  let collecting: Promise<string> | null = null;

  /**
   * Every live worker's metrics in one exposition, each series labelled with its worker's slot. Not summed: a sum
   * would drop whenever a worker is replaced (its totals gone), which Prometheus reads as a counter reset of the whole
   * service; per-worker series reset on their own, as a restarted process's do, and PromQL sums them
   * (`sum without (worker) (…)`). Concurrent scrapes share one collection.
   */
  const collect = (): Promise<string> =>
    (collecting ??= (async () => {
      const live = [...workers.values()].filter((w) => w.isConnected());
      const entry = {
        id: ++collectSeq,
        pending: new Set(live.map((w) => w.id)),
        metrics: [] as unknown[][],
        done: () => undefined as void,
      };
      const finished = new Promise<void>((resolve) => (entry.done = resolve));
      current = entry;
      for (const w of live) w.send({ type: METRICS_COLLECT, id: entry.id });
      if (entry.pending.size === 0) entry.done();
      const timer = setTimeout(() => entry.done(), COLLECT_TIMEOUT_MS);
      await finished;
      clearTimeout(timer);
      current = null;
      return AggregatorRegistry.aggregate(entry.metrics).metrics();
    })().finally(() => (collecting = null)));

  const onMessage = (w: Worker, slot: number, m: unknown) => {
    if (!isMessage(m)) return;
    if (m.type === METRICS_COLLECTED) {
      const entry = current;
      if (!entry || entry.id !== m.id || !entry.pending.delete(w.id)) return;
      if (Array.isArray(m.metrics)) entry.metrics.push(labelWorker(m.metrics, slot));
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
      const w = cluster.fork({ DATABASE_URL: url, [WORKER_SLOT_ENV]: String(slot) });
      workers.set(slot, w);
      const forkedAt = Date.now();
      let listening = false;
      w.on('message', (m) => onMessage(w, slot, m));
      w.once('listening', () => {
        listening = true;
        resolve(w);
      });
      w.once('exit', (code, signal) => {
        if (workers.get(slot) === w) workers.delete(slot);
        if (current?.pending.delete(w.id) && current.pending.size === 0) current.done();
        if (!listening) {
          reject(new Error(`worker ${slot} exited during start-up (${signal ?? code})`));
          return;
        }
        if (stopping) {
          if (code !== 0) failed = true;
          return;
        }
        const delay =
          Date.now() - forkedAt > STABLE_AFTER_MS
            ? RESTART_DELAY_MS
            : Math.min(MAX_RESTART_DELAY_MS, (restartDelay.get(slot) ?? RESTART_DELAY_MS / 2) * 2);
        restartDelay.set(slot, delay);
        logger.error(
          { worker: slot, pid: w.process.pid, code, signal, restartInMs: delay },
          'worker exited: starting a new one',
        );
        replace(slot, delay, 0);
      });
    });

  const restartDelay = new Map<number, number>(); // slot → the last pause before replacing it

  const replace = (slot: number, delay: number, failedStarts: number) => {
    setTimeout(() => {
      if (stopping) return;
      fork(slot).then(
        (nw) => logger.info({ worker: slot, pid: nw.process.pid }, 'worker replaced'),
        (e: Error) => {
          if (stopping) return;
          if (failedStarts + 1 >= MAX_FAILED_STARTS) {
            logger.error(
              { err: e, worker: slot },
              `a replacement worker failed to start ${MAX_FAILED_STARTS} times in a row: stopping`,
            );
            void shutdown('worker restart failed', 1);
            return;
          }
          const next = Math.min(MAX_RESTART_DELAY_MS, delay * 2);
          logger.error({ err: e, worker: slot, retryInMs: next }, 'a replacement worker failed to start: retrying');
          replace(slot, next, failedStarts + 1);
        },
      );
    }, delay);
  };

  /** SIGTERM to every worker (each drains as a single process would); resolves once all have exited. */
  const stopWorkers = () =>
    Promise.all(
      [...workers.values()].map(
        (w) =>
          new Promise<void>((resolve) => {
            if (w.isDead()) return resolve();
            w.once('exit', () => resolve());
            w.process.kill('SIGTERM');
          }),
      ),
    );

  const shutdown = async (signal: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    if (code !== 0) failed = true;
    logger.info({ signal }, 'shutting down: each worker finishes its in-flight requests');
    const force = setTimeout(() => {
      logger.error('workers did not stop in time: killing them');
      for (const w of workers.values()) w.process.kill('SIGKILL');
    }, DRAIN_TIMEOUT_MS);
    await stopWorkers();
    clearTimeout(force);
    await embedded?.stop().catch((e: Error) => logger.error({ err: e }, 'stopping the embedded PostgreSQL failed'));
    process.exit(failed ? 1 : 0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  try {
    for (let slot = 0; slot < config.workers; slot++) await fork(slot);
  } catch (e) {
    // A signal during start-up: shutdown() is already draining the workers that started (a starting one has no handler
    // yet, so the signal ended it) and will exit; let it.
    if (stopping) return;
    stopping = true;
    failed = true;
    await stopWorkers();
    await embedded?.stop().catch(() => undefined);
    throw e;
  }
  logger.info(
    { port: config.port, workers: [...workers.values()].map((w) => w.process.pid) },
    `Ledgerline listening on http://${config.host}:${config.port} with ${config.workers} workers`,
  );
}

/**
 * A worker's metrics (prom-client JSON) with `worker="<slot>"` added to every value's labels. The aggregator becomes
 * `sum`, which merges values with equal labels only: with the worker label none are equal, so every worker's value is
 * kept as it is (prom-client's own choices, such as omitting process_start_time_seconds, are for summed workers).
 */
function labelWorker(metrics: unknown[], slot: number): unknown[] {
  const worker = String(slot);
  return metrics.map((m) => {
    const metric = m as { values?: Array<{ labels?: Record<string, unknown> }> };
    return {
      ...metric,
      aggregator: 'sum',
      values: (metric.values ?? []).map((v) => ({ ...v, labels: { ...v.labels, worker } })),
    };
  });
}
