/**
 * npm run bench:canton-coin — the start time of the Canton Coin development profile (LEDGER_CANTON_COIN=dev), as an
 * operator sees it: from spawning the server (`dist/`, a child process) to its first answer on GET /livez (the profile's
 * set-up runs before the port opens, so that answer means the DSO's state is there). Cold: a new database, the
 * LEDGER_CANTON_COIN_DARS uploaded and the DSO's state created. Warm: a restart on that database (the DARs' main packages
 * found stored, the state found, nothing written). Baseline, in the same round: the same server without the profile,
 * uploading the same DARs through a bootstrap file, on a new database (cold) and restarted on it (warm): a ledger holding
 * those packages decodes them for the engine in the background at every start, with or without the profile. Also the
 * profile's own share, as the server logs it ("Canton Coin profile: started": DAR uploads, set-up). The table gives
 * medians over the rounds, and the median of the per-round differences.
 *
 * Knobs: BENCH_CANTON_COIN_DARS (comma-separated DAR paths; default: splice-amulet 0.1.22 and splice-wallet 0.1.23 under
 * LEDGERLINE_CONFORMANCE_DARS/splice), BENCH_DATABASE_URL, BENCH_CANTON_COIN_ROUNDS (default 3).
 */
import 'reflect-metadata';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { createBenchDatabase, envInt, fmt, printTable, serverNodeArgs } from './lib';

const ROUNDS = envInt('BENCH_CANTON_COIN_ROUNDS', 3);
const PORT = envInt('BENCH_PORT', 7692);
const SECRET = 'bench-canton-coin-secret-0123456789';

function dars(): string {
  const env = process.env;
  if (env.BENCH_CANTON_COIN_DARS) return env.BENCH_CANTON_COIN_DARS;
  if (!env.LEDGERLINE_CONFORMANCE_DARS)
    throw new Error('set BENCH_CANTON_COIN_DARS (or LEDGERLINE_CONFORMANCE_DARS) to the Splice DARs');
  return ['splice-amulet-0.1.22.dar', 'splice-wallet-0.1.23.dar']
    .map((d) => path.join(env.LEDGERLINE_CONFORMANCE_DARS!, 'splice', d))
    .join(',');
}

interface Started {
  child: ChildProcess;
  ms: number;
  /** The profile's own log line: DAR uploads and set-up, ms. */
  profile?: { darsMs: number; setUpMs: number };
}

/** Spawns the server and resolves with the milliseconds until GET /livez answers 200. */
async function start(url: string, env: Record<string, string>): Promise<Started> {
  const main = path.resolve(__dirname, '../apps/server/src/main.js');
  const t0 = performance.now();
  const child = spawn(process.execPath, [...serverNodeArgs(), main], {
    env: {
      ...process.env,
      DATABASE_URL: url,
      PORT: String(PORT),
      LEDGER_GRPC_PORT: 'off',
      HOST: '127.0.0.1',
      LEDGER_JWT_SECRET: SECRET,
      LEDGER_LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const started: Started = { child, ms: 0 };
  let buffered = '';
  child.stdout!.on('data', (d: Buffer) => {
    buffered += d.toString();
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (!line.includes('Canton Coin profile: started')) continue;
      const { darsMs, setUpMs } = JSON.parse(line) as { darsMs: number; setUpMs: number };
      started.profile = { darsMs, setUpMs };
    }
  });
  for (;;) {
    if (
      await fetch(`http://127.0.0.1:${PORT}/livez`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { ...started, ms: performance.now() - t0, child };
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
  const profileEnv = { LEDGER_CANTON_COIN: 'dev', LEDGER_CANTON_COIN_DARS: dars() };
  const bootstrapFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-coin-')), 'bootstrap.json');
  fs.writeFileSync(bootstrapFile, JSON.stringify({ dars: dars().split(',') }));
  const baselineEnv = { LEDGER_BOOTSTRAP_FILE: bootstrapFile };
  const t: Record<string, number[]> = {};
  const push = (k: string, v: number) => (t[k] ??= []).push(v);
  for (let r = 0; r < ROUNDS; r++) {
    const round: Record<string, number> = {};
    for (const [name, env] of [
      ['baseline', baselineEnv],
      ['profile', profileEnv],
    ] as const) {
      const db = await createBenchDatabase({ label: `coin_${name}` });
      try {
        for (const phase of ['cold', 'warm']) {
          const s = await start(db.url, env);
          round[`${name}:${phase}`] = s.ms;
          push(`${name}:${phase}`, s.ms);
          if (s.profile) {
            push(`dars:${phase}`, s.profile.darsMs);
            push(`setUp:${phase}`, s.profile.setUpMs);
          }
          await stop(s.child);
        }
      } finally {
        await db.drop();
      }
    }
    for (const phase of ['cold', 'warm']) push(`diff:${phase}`, round[`profile:${phase}`] - round[`baseline:${phase}`]);
    console.log(
      `round ${r + 1}: ${Object.entries(round)
        .map(([k, v]) => `${k} ${fmt(v, 0)} ms`)
        .join(', ')}`,
    );
  }
  const row = (label: string, phase: string) => [
    label,
    fmt(median(t[`profile:${phase}`]), 0),
    fmt(median(t[`baseline:${phase}`]), 0),
    fmt(median(t[`diff:${phase}`]), 0),
    fmt(median(t[`dars:${phase}`]), 0),
    fmt(median(t[`setUp:${phase}`]), 0),
  ];
  printTable([
    [
      'start',
      'to /livez, profile',
      'to /livez, baseline (same DARs, bootstrap file)',
      'difference (median per round)',
      'profile: DARs',
      'profile: set-up',
    ],
    row('cold (new database)', 'cold'),
    row('warm (restart, data kept)', 'warm'),
  ]);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
