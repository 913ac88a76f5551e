import cluster from 'node:cluster';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { clusterMetricsText, serveMetricsToPrimary } from './cluster-metrics';

/** Prometheus metrics of one service instance (served at GET /metrics). */
export class HttpMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'ledgerline_http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'],
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: 'ledgerline_http_request_duration_seconds',
    help: 'HTTP request latency by method and route',
    labelNames: ['method', 'route'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  readonly ledgerEnd = new Gauge({
    name: 'ledgerline_ledger_end',
    help: 'Current ledger end offset',
    registers: [this.registry],
  });
  readonly batchSize = new Histogram({
    name: 'ledgerline_append_batch_size',
    help: 'Works committed per event-log transaction (group commit)',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
    registers: [this.registry],
  });
  readonly batchLatency = new Histogram({
    name: 'ledgerline_append_batch_duration_seconds',
    help: 'Duration of one event-log transaction',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [this.registry],
  });
  readonly batchPhases = new Histogram({
    name: 'ledgerline_append_batch_phase_seconds',
    help: 'Time of one event-log transaction by phase: lock (connection, BEGIN, ledger_head lock), load (state loads), decide, write (the batch statement), commit',
    labelNames: ['phase'],
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [this.registry],
  });

  /** Offsets each read replica is behind the primary's ledger end (-1: the replica does not answer). */
  trackReplicas(reads: { lag(): Array<{ replica: string; offsets: number | null }> }): void {
    new Gauge({
      name: 'ledgerline_read_replica_lag_offsets',
      help: "Offsets a read replica's ledger end is behind the primary's (-1: the replica does not answer)",
      labelNames: ['replica'],
      registers: [this.registry],
      collect() {
        for (const { replica, offsets } of reads.lag()) this.set({ replica }, offsets ?? -1);
      },
    });
  }

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'ledgerline_' });
    serveMetricsToPrimary(this.registry);
  }

  /** The Prometheus text of GET /metrics: this process's metrics, or in a cluster worker every worker's (label `worker`). */
  exposition(): Promise<string> {
    return cluster.isWorker ? clusterMetricsText() : this.registry.metrics();
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    this.requests.inc({ method, route, status: String(status) });
    this.latency.observe({ method, route }, seconds);
  }
}
