/** Latency summary in milliseconds. */
export interface LatencyStats {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export interface RunResult {
  concurrency: number;
  /** Operations completed in the measured window (after warm-up). */
  ops: number;
  /** Operations that threw (not counted in `ops` nor in the latencies). */
  errors: number;
  elapsedMs: number;
  opsPerSec: number;
  latency: LatencyStats;
  firstError?: unknown;
  /** Every measured latency (ms), for combining runs. */
  samples?: number[];
}

export interface RunOptions {
  /** Concurrent workers, each running `op` in a loop (one outstanding operation per worker). */
  concurrency: number;
  /** Measure for this long (ms)… */
  durationMs?: number;
  /** …or until this many operations completed in total (whichever comes first when both are given). */
  count?: number;
  /** Run (unmeasured) for this long before measuring (ms). Default 0. */
  warmupMs?: number;
  /** One operation. `worker` is 0…concurrency-1, `i` a run-wide sequence number (unique across workers). */
  op: (worker: number, i: number) => Promise<unknown>;
  /** Called as the measured window opens and as it closes (after the warm-up; e.g. to read CPU counters). */
  onWindow?: (edge: 'start' | 'end') => void;
}

/**
 * Runs `concurrency` workers, each calling `op` back to back, and measures throughput and per-operation latency.
 * With neither `durationMs` nor `count`, runs for 5 s.
 */
export async function runConcurrent(opts: RunOptions): Promise<RunResult> {
  const { concurrency, op } = opts;
  const durationMs = opts.durationMs ?? (opts.count === undefined ? 5000 : Infinity);
  const count = opts.count ?? Infinity;
  let seq = 0;

  if (opts.warmupMs && opts.warmupMs > 0) {
    const until = performance.now() + opts.warmupMs;
    await Promise.all(
      Array.from({ length: concurrency }, async (_, w) => {
        while (performance.now() < until) await op(w, seq++).catch(() => undefined);
      }),
    );
  }

  const latencies: number[] = [];
  let errors = 0;
  let firstError: unknown;
  let started = 0;
  opts.onWindow?.('start');
  const t0 = performance.now();
  const deadline = t0 + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      while (started < count && performance.now() < deadline) {
        started++;
        const s = performance.now();
        try {
          await op(w, seq++);
          latencies.push(performance.now() - s);
        } catch (e) {
          errors++;
          firstError ??= e;
        }
      }
    }),
  );
  const elapsedMs = performance.now() - t0;
  opts.onWindow?.('end');
  return {
    concurrency,
    ops: latencies.length,
    errors,
    elapsedMs,
    opsPerSec: latencies.length / (elapsedMs / 1000),
    latency: summarize(latencies),
    firstError,
    samples: latencies,
  };
}

/** Mean and nearest-rank percentiles of a list of latencies (ms). */
export function summarize(values: number[]): LatencyStats {
  if (values.length === 0) return { count: 0, mean: NaN, p50: NaN, p90: NaN, p99: NaN, max: NaN };
  const sorted = Float64Array.from(values).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    count: sorted.length,
    mean: sum / sorted.length,
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    max: sorted[sorted.length - 1],
  };
}

/** Sums several runs of the same operation (rounds of an interleaved measurement) into one result. */
export function combineRuns(runs: RunResult[]): RunResult {
  const ops = runs.reduce((a, r) => a + r.ops, 0);
  const elapsedMs = runs.reduce((a, r) => a + r.elapsedMs, 0);
  return {
    concurrency: runs[0].concurrency,
    ops,
    errors: runs.reduce((a, r) => a + r.errors, 0),
    elapsedMs,
    opsPerSec: ops / (elapsedMs / 1000),
    latency: summarize(runs.flatMap((r) => r.samples ?? [])),
    firstError: runs.find((r) => r.firstError !== undefined)?.firstError,
    samples: runs.flatMap((r) => r.samples ?? []),
  };
}
