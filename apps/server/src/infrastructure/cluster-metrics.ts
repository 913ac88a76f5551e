import cluster from 'node:cluster';
import type { Registry } from 'prom-client';

/**
 * The /metrics protocol between a LEDGER_WORKERS primary (cluster.ts) and its workers, over node:cluster's IPC channel:
 * the worker that takes a scrape asks the primary (METRICS_REQUEST); the primary asks every worker for its metrics as
 * JSON (METRICS_COLLECT → METRICS_COLLECTED), labels each worker's series with its slot, merges them and answers
 * (METRICS_REPLY).
 */
export const METRICS_REQUEST = 'ledgerline:metrics-request';
export const METRICS_REPLY = 'ledgerline:metrics-reply';
export const METRICS_COLLECT = 'ledgerline:metrics-collect';
export const METRICS_COLLECTED = 'ledgerline:metrics-collected';
/** How long the primary waits for the workers' metrics (a worker that does not answer is left out). */
export const COLLECT_TIMEOUT_MS = 3000;

export interface ClusterMessage {
  type: string;
  id: number;
  text?: string;
  metrics?: unknown[];
  error?: string;
}

export const isMessage = (m: unknown): m is ClusterMessage =>
  typeof m === 'object' && m !== null && typeof (m as ClusterMessage).type === 'string';

/** In a worker: answers the primary's collection requests with this worker's metrics. */
export function serveMetricsToPrimary(registry: Registry): void {
  if (!cluster.isWorker) return;
  process.on('message', (m: unknown) => {
    if (!isMessage(m) || m.type !== METRICS_COLLECT) return;
    registry.getMetricsAsJSON().then(
      (metrics) => process.send?.({ type: METRICS_COLLECTED, id: m.id, metrics }),
      () => process.send?.({ type: METRICS_COLLECTED, id: m.id, metrics: [] }),
    );
  });
}

let requestSeq = 0;
const awaitingReply = new Map<number, { resolve: (text: string) => void; reject: (e: Error) => void }>();
let replyListener = false;

/** In a worker: the metrics of all workers, gathered by the primary. One IPC listener serves every pending request. */
export function clusterMetricsText(): Promise<string> {
  if (!replyListener) {
    replyListener = true;
    process.on('message', (m: unknown) => {
      if (!isMessage(m) || m.type !== METRICS_REPLY) return;
      const waiter = awaitingReply.get(m.id);
      if (!waiter) return;
      awaitingReply.delete(m.id);
      if (m.error !== undefined) waiter.reject(new Error(m.error));
      else waiter.resolve(m.text ?? '');
    });
  }
  const id = ++requestSeq;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      awaitingReply.delete(id);
      reject(new Error('the primary process did not answer with the metrics'));
    }, COLLECT_TIMEOUT_MS * 2);
    awaitingReply.set(id, {
      resolve: (text) => (clearTimeout(timer), resolve(text)),
      reject: (e) => (clearTimeout(timer), reject(e)),
    });
    process.send?.({ type: METRICS_REQUEST, id });
  });
}
