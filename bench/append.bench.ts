/**
 * npm run bench:append — appends/s of the event store (group commit) at 1, 16 and 64 concurrent appenders, next to the
 * baseline measured in the same run on the same database (one single-row INSERT + COMMIT per append through `pg`).
 *
 * Knobs: BENCH_DATABASE_URL (server to use; default postgres://postgres@127.0.0.1:5432/postgres),
 * BENCH_CONCURRENCY (default "1,16,64"), BENCH_DURATION_MS (measured time per side and concurrency, default 6000),
 * BENCH_ROUNDS (default 3: baseline and event store alternate in rounds of DURATION/ROUNDS, so that a change of load on
 * a shared machine hits both sides alike), BENCH_WARMUP_MS (default 500 per round), BENCH_JSON=1 (also print JSON).
 * Target at 64 appenders: ≥ 1.5× the baseline, p99 ≤ 50 ms.
 */
import 'reflect-metadata';
import { EventStore, openDatabase } from '@ledgerline/store';
import type { NewLedgerEvent } from '@ledgerline/domain';
import { foreignEvent } from '../testkit/foreign-event';
import {
  appendBaseline,
  benchPayload,
  combineRuns,
  envInt,
  fmt,
  printTable,
  runConcurrent,
  withBenchDatabase,
  type RunResult,
} from './lib';

const concurrencies = (process.env.BENCH_CONCURRENCY ?? '1,16,64').split(',').map((s) => Number(s.trim()));
const durationMs = envInt('BENCH_DURATION_MS', 6000);
const rounds = envInt('BENCH_ROUNDS', 3);
const warmupMs = Number(process.env.BENCH_WARMUP_MS ?? 500);

const SYNC = 'global::1220' + 'cd'.repeat(32);
const event = (i: number): NewLedgerEvent =>
  foreignEvent({
    type: 'BenchAppended',
    stream: `bench:${i}`,
    data: benchPayload(i),
    update: {
      kind: 'Transaction',
      synchronizerId: SYNC,
      parties: ['alice::1220' + 'ab'.repeat(32)],
      commandId: `cmd-${i}`,
    },
  });

async function measureEventStore(url: string, concurrency: number): Promise<RunResult & { meanBatch: number }> {
  const database = openDatabase(url, { max: 4, applicationName: 'ledgerline-bench-store' });
  let batches = 0;
  let works = 0;
  const store = new EventStore(database.db, {
    participantId: 'bench::1220' + 'ef'.repeat(32),
    // As the service runs it (LEDGER_APPEND_BATCH_LINGER_MS, default 1).
    lingerMs: Number(process.env.LEDGER_APPEND_BATCH_LINGER_MS ?? 1),
    onBatch: ({ size }) => {
      batches++;
      works += size;
    },
  });
  try {
    const r = await runConcurrent({
      concurrency,
      durationMs: durationMs / rounds,
      warmupMs,
      op: (_, i) => store.append([event(i)]),
    });
    return { ...r, meanBatch: works / Math.max(1, batches) };
  } finally {
    await store.close();
    await database.close();
  }
}

async function main(): Promise<void> {
  console.log(
    `append benchmark: ${durationMs} ms measured per side and concurrency, in ${rounds} alternating rounds (${warmupMs} ms warm-up each); concurrency ${concurrencies.join(', ')}`,
  );
  const rows: Array<Array<string | number>> = [
    ['appenders', 'baseline/s', 'baseline p99 ms', 'event store/s', 'p50 ms', 'p99 ms', 'mean batch', 'ratio'],
  ];
  const results: Array<{ concurrency: number; baseline: RunResult; store: RunResult & { meanBatch: number } }> = [];
  await withBenchDatabase({ label: 'append', migrate: true }, async ({ url }) => {
    for (const concurrency of concurrencies) {
      const baselineRuns: RunResult[] = [];
      const storeRuns: Array<RunResult & { meanBatch: number }> = [];
      for (let round = 0; round < rounds; round++) {
        baselineRuns.push(await appendBaseline(url, { concurrency, durationMs: durationMs / rounds, warmupMs }));
        storeRuns.push(await measureEventStore(url, concurrency));
      }
      const baseline = combineRuns(baselineRuns);
      const store = {
        ...combineRuns(storeRuns),
        meanBatch:
          storeRuns.reduce((a, r) => a + r.meanBatch * r.ops, 0) /
          Math.max(
            1,
            storeRuns.reduce((a, r) => a + r.ops, 0),
          ),
      };
      for (const r of [baseline, store])
        if (r.errors) throw new Error(`${r.errors} operations failed: ${String(r.firstError)}`);
      results.push({ concurrency, baseline, store });
      rows.push([
        String(concurrency),
        baseline.opsPerSec,
        baseline.latency.p99,
        store.opsPerSec,
        store.latency.p50,
        store.latency.p99,
        store.meanBatch,
        `${fmt(store.opsPerSec / baseline.opsPerSec, 2)}×`,
      ]);
    }
  });
  console.log();
  printTable(rows);
  const at64 = results.find((r) => r.concurrency === 64);
  if (at64) {
    const ratio = at64.store.opsPerSec / at64.baseline.opsPerSec;
    const ok = ratio >= 1.5 && at64.store.latency.p99 <= 50;
    console.log(
      `\ntarget at 64 appenders (≥ 1.5× baseline, p99 ≤ 50 ms): ${ok ? 'met' : 'MISSED'} (${fmt(ratio, 2)}×, p99 ${fmt(at64.store.latency.p99)} ms)`,
    );
  }
  if (process.env.BENCH_JSON) {
    console.log(
      JSON.stringify(
        results.map((r) => ({ concurrency: r.concurrency, baseline: strip(r.baseline), store: strip(r.store) })),
      ),
    );
  }
}

const strip = (r: RunResult) => ({ ...r, firstError: undefined, samples: undefined });

main().catch((e) => {
  console.error('bench failed:', e);
  process.exit(1);
});
