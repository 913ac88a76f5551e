/**
 * npm run bench:canton-coin — the start time of the Canton Coin development profile (LEDGER_CANTON_COIN=dev), as an
 * operator sees it: from spawning the server (`dist/`, a child process) to its first answer on GET /livez (the profile's
 * set-up runs before the port opens, so that answer means the DSO's state is there). Cold: a new database, the
 * LEDGER_CANTON_COIN_DARS uploaded and the DSO's state created. Warm: a restart on that database (the DARs uploaded again,
 * which stores nothing new; the state found, not created). Baseline, in the same run: the same server without the profile
 * on a new database (cold) and restarted on it (warm). Each round measures the four starts one after the other; the table
 * gives the medians.
 *
 * Knobs: BENCH_CANTON_COIN_DARS (comma-separated DAR paths; default: splice-amulet 0.1.22 and splice-wallet 0.1.23 under
 * LEDGERLINE_CONFORMANCE_DARS/splice), BENCH_DATABASE_URL, BENCH_CANTON_COIN_ROUNDS (default 3).
 */
import 'reflect-metadata';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { createBenchDatabase, envInt, fmt, printTable, serverNodeArgs } from './lib';

const ROUNDS = envInt('BENCH_CANTON_COIN_ROUNDS', 3);
const PORT = envInt('BENCH_PORT', 7692);
const SECRET = 'bench-canton-coin-secret-0123456789';

function dars(): string {
  const env = process.env;
  if (env.BENCH_CANTON_COIN_DARS) return env.BENCH_CANTON_COIN_DARS;
  if (!env.LEDGERLINE_CONFORMANCE_DARS) throw new Error('set BENCH_CANTON_COIN_DARS (or LEDGERLINE_CONFORMANCE_DARS) to the Splice DARs');
  return ['splice-amulet-0.1.22.dar', 'splice-wallet-0.1.23.dar'].map((d) => path.join(env.LEDGERLINE_CONFORMANCE_DARS!, 'splice', d)).join(',');
}

/** Spawns the server and resolves with the milliseconds until GET /livez answers 200. */
async function start(url: string, env: Record<string, string>): Promise<{ child: ChildProcess; ms: number }> {
  const main = path.resolve(__dirname, '../apps/server/src/main.js');
  const t0 = performance.now();
  const child = spawn(process.execPath, [...serverNodeArgs(), main], {
    env: { ...process.env, DATABASE_URL: url, PORT: String(PORT), HOST: '127.0.0.1', LEDGER_JWT_SECRET: SECRET, LEDGER_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (;;) {
    if (await fetch(`http://127.0.0.1:${PORT}/livez`).then((r) => r.ok, () => false)) return { child, ms: performance.now() - t0 };
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    if (performance.now() - t0 > 120_000) throw new Error('server did not answer within 120 s');
    await new Promise((r) => setTimeout(r, 10));
  }
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const profile = { LEDGER_CANTON_COIN: 'dev', LEDGER_CANTON_COIN_DARS: dars() };
  const t: Record<string, number[]> = { baselineCold: [], baselineWarm: [], profileCold: [], profileWarm: [] };
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, env] of [['baseline', {}], ['profile', profile]] as const) {
      const db = await createBenchDatabase({ label: `coin_${name}` });
      try {
        const cold = await start(db.url, env);
        t[`${name}Cold`].push(cold.ms);
        await stop(cold.child);
        const warm = await start(db.url, env);
        t[`${name}Warm`].push(warm.ms);
        await stop(warm.child);
      } finally {
        await db.drop();
      }
    }
    console.log(`round ${r + 1}: ${Object.entries(t).map(([k, v]) => `${k} ${fmt(v.at(-1)!, 0)} ms`).join(', ')}`);
  }
  printTable([
    ['start', 'median ms (profile)', 'median ms (baseline: no profile)', 'difference ms'],
    ['cold (new database)', fmt(median(t.profileCold), 0), fmt(median(t.baselineCold), 0), fmt(median(t.profileCold) - median(t.baselineCold), 0)],
    ['warm (restart, data kept)', fmt(median(t.profileWarm), 0), fmt(median(t.baselineWarm), 0), fmt(median(t.profileWarm) - median(t.baselineWarm), 0)],
  ]);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
