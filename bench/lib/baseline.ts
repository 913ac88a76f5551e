import { Pool } from 'pg';
import { runConcurrent, type RunResult } from './workers';

/**
 * The append baseline every event-log benchmark is compared with: one append = one single-row INSERT into a table shaped
 * like the event log, committed on its own (BEGIN; INSERT; COMMIT) through `pg`, each worker on its own connection. This
 * is what a naive "one transaction per request" writer costs on the same server.
 */
export async function appendBaseline(
  url: string,
  opts: {
    concurrency: number;
    durationMs?: number;
    count?: number;
    warmupMs?: number;
    onWindow?: (edge: 'start' | 'end') => void;
  },
): Promise<RunResult> {
  const pool = new Pool({
    connectionString: url,
    max: opts.concurrency,
    application_name: 'ledgerline-bench-baseline',
  });
  pool.on('error', () => undefined);
  try {
    await pool.query(`CREATE TABLE IF NOT EXISTS bench_baseline_log (
      seq bigserial PRIMARY KEY, type text NOT NULL, stream text NOT NULL, data jsonb NOT NULL, recorded_at text NOT NULL)`);
    const clients = await Promise.all(Array.from({ length: opts.concurrency }, () => pool.connect()));
    try {
      return await runConcurrent({
        ...opts,
        op: async (w, i) => {
          const c = clients[w];
          await c.query('BEGIN');
          await c.query('INSERT INTO bench_baseline_log (type, stream, data, recorded_at) VALUES ($1, $2, $3, $4)', [
            'BenchAppended',
            `bench:${i}`,
            JSON.stringify(benchPayload(i)),
            new Date().toISOString(),
          ]);
          await c.query('COMMIT');
        },
      });
    } finally {
      for (const c of clients) c.release();
    }
  } finally {
    await pool.end();
  }
}

/** A small, realistic event payload (~200 bytes of JSON). */
export function benchPayload(i: number): Record<string, unknown> {
  return {
    i,
    commandId: `cmd-${i}`,
    actAs: ['alice::1220' + 'ab'.repeat(32)],
    note: 'benchmark append',
  };
}
