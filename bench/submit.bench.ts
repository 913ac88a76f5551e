/**
 * npm run bench:submit — command submission by local parties: POST /v2/commands/submit-and-wait at 16 and 64 concurrent
 * clients (each request a create of a fresh command), then async/submit at 64 clients with the outcome taken from the
 * completion stream (one WebSocket on /v2/commands/completions for every party; an operation ends when its completion
 * arrives). Each is set against the append baseline measured in the same run on the same server (one single-row
 * INSERT + COMMIT per append at 64 appenders, bench/lib), with p50/p99 latency and the writer's batch phases from the
 * server's metrics.
 *
 * The service runs as a child process on a throwaway database; the timed requests go over bench/lib/raw-http (one
 * keep-alive socket per client, request bytes serialised before the window). Knobs: BENCH_DATABASE_URL,
 * BENCH_CONCURRENCY (default "16,64"), BENCH_DURATION_MS (default 5000), BENCH_WARMUP_MS (first measurement, default
 * 10000), BENCH_REWARM_MS (later ones, default 1000), BENCH_MAX_RATE (requests/s prepared for, default 4000),
 * BENCH_PARTIES (local parties, default 64), BENCH_SERVER_NODE_ARGS.
 * Goal at 64 clients: submit-and-wait ≥ 0.5× baseline (the goal executeAndWait has).
 */
import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import WebSocket from 'ws';
import { mintHs256Token } from '@ledgerline/auth';
import { openDatabase } from '@ledgerline/store';
import { loadParticipantIdentity } from '@ledgerline/server/infrastructure/participant-identity';
import {
  appendBaseline,
  envInt,
  fmt,
  printTable,
  runConcurrent,
  serverNodeArgs,
  withBenchDatabase,
  type RunResult,
} from './lib';
import { closeFastFetch, fastFetch } from './lib/http-client';
import { RawHttpConnection, serialiseRequest } from './lib/raw-http';

const concurrencies = (process.env.BENCH_CONCURRENCY ?? '16,64').split(',').map((s) => Number(s.trim()));
const durationMs = envInt('BENCH_DURATION_MS', 5000);
const warmupMs = envInt('BENCH_WARMUP_MS', 10_000);
const rewarmMs = envInt('BENCH_REWARM_MS', 1000);
const maxRate = envInt('BENCH_MAX_RATE', 4000);
const partyCount = envInt('BENCH_PARTIES', 64);
const ASYNC_CLIENTS = 64;
const SECRET = 'bench-secret-bench-secret-bench';
const PORT = 18000 + Math.floor(Math.random() * 1000);
const USER = 'bench-app';
const PHASES = ['lock', 'load', 'decide', 'write', 'commit'] as const;

async function call(
  method: string,
  pathname: string,
  token: string | undefined,
  body?: unknown,
): Promise<{ status: number; text: string }> {
  const res = await fastFetch(`http://127.0.0.1:${PORT}${pathname}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

async function startServer(url: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...serverNodeArgs(), path.resolve(__dirname, '../apps/server/src/main.js')], {
    env: {
      ...process.env,
      DATABASE_URL: url,
      PORT: String(PORT),
      LEDGER_GRPC_PORT: 'off',
      HOST: '127.0.0.1',
      LEDGER_JWT_SECRET: SECRET,
      LEDGER_LOG_LEVEL: 'warn',
      LEDGER_DB_POOL_SIZE: '8',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      if ((await call('GET', '/livez', undefined)).status < 500) return child;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error('server did not start');
}

/** Sum and count of a histogram of the server's /metrics (`label` picks the series carrying it). */
async function histogram(name: string, label?: string): Promise<{ sum: number; count: number }> {
  const text = (await call('GET', '/metrics', undefined)).text;
  const labels = label ? `\\{[^}]*${label}[^}]*\\}` : '(?:\\{[^}]*\\})?';
  const num = (suffix: string) =>
    [...text.matchAll(new RegExp(`^${name}_${suffix}${labels} (\\S+)$`, 'gm'))].reduce(
      (sum, m) => sum + Number(m[1]),
      0,
    );
  return { sum: num('sum'), count: num('count') };
}

interface Measured {
  name: string;
  concurrency: number;
  baseline: RunResult;
  run: RunResult;
  batch: number;
  phases: Record<(typeof PHASES)[number], number>;
}

async function main(): Promise<void> {
  console.log(
    `command submission benchmark: ${durationMs} ms per measurement after ${warmupMs} ms warm-up (${rewarmMs} ms before later ones); submit-and-wait clients ${concurrencies.join(', ')}, async + completions ${ASYNC_CLIENTS}; ${partyCount} local parties`,
  );
  await withBenchDatabase({ label: 'submit', migrate: true }, async ({ url }) => {
    const server = await startServer(url);
    try {
      const database = openDatabase(url, { max: 2 });
      const identity = await loadParticipantIdentity(database.db, 'participant1', ['global', 'secondary']);
      await database.close();
      const participantId = identity.participantId;
      const sync = identity.defaultSynchronizer.id;
      const adminToken = await mintHs256Token({ secret: SECRET, userId: 'participant_admin', participantId });
      const parties: string[] = [];
      for (let i = 0; i < partyCount; i++) {
        const r = await call('POST', '/v2/parties', adminToken, { partyIdHint: `bench-${i}`, synchronizerId: sync });
        if (r.status !== 200) throw new Error(`allocate: ${r.status} ${r.text}`);
        parties.push(JSON.parse(r.text).partyDetails.party);
      }
      const created = await call('POST', '/v2/users', adminToken, {
        user: { id: USER, primaryParty: '' },
        rights: [{ kind: { CanActAsAnyParty: { value: {} } } }],
      });
      if (created.status !== 200) throw new Error(`create user: ${created.status} ${created.text}`);
      const token = await mintHs256Token({ secret: SECRET, userId: USER, participantId, expiresInSeconds: 3600 });

      // Request bytes, serialised before any timed window: enough for BENCH_MAX_RATE through every warm-up and window.
      const windowsMs = [...concurrencies, ASYNC_CLIENTS].reduce(
        (sum, _, i) => sum + (i === 0 ? warmupMs : rewarmMs) + durationMs,
        0,
      );
      const total = Math.ceil((windowsMs / 1000) * maxRate);
      const headers = { host: '127.0.0.1', 'content-type': 'application/json', authorization: `Bearer ${token}` };
      const requests: Array<{ commandId: string; wait: Buffer; async: Buffer }> = [];
      for (let i = 0; i < total; i++) {
        const party = parties[i % parties.length];
        const commandId = `bench-${i}`;
        const body = Buffer.from(
          JSON.stringify({
            commands: [{ CreateCommand: { templateId: '#bench:Main:Note', createArguments: { owner: party, n: i } } }],
            commandId,
            actAs: [party],
          }),
        );
        requests.push({
          commandId,
          wait: serialiseRequest('POST', '/v2/commands/submit-and-wait', headers, body),
          async: serialiseRequest('POST', '/v2/commands/async/submit', headers, body),
        });
      }
      let next = 0;
      const take = () => {
        const r = requests[next++];
        if (!r) throw new Error(`ran out of prepared requests: the server ran faster than BENCH_MAX_RATE=${maxRate}/s`);
        return r;
      };
      const connections = new Map<number, RawHttpConnection>();
      const connection = (w: number) => {
        let c = connections.get(w);
        if (!c) connections.set(w, (c = new RawHttpConnection('127.0.0.1', PORT)));
        return c;
      };
      const closeConnections = async () => {
        for (const c of connections.values()) c.close();
        connections.clear();
        await closeFastFetch();
      };

      const measure = async (
        name: string,
        concurrency: number,
        first: boolean,
        op: (w: number) => Promise<void>,
      ): Promise<Measured> => {
        const baseline = await appendBaseline(url, { concurrency: 64, durationMs, warmupMs: 1000 });
        const warm = await runConcurrent({ concurrency, durationMs: first ? warmupMs : rewarmMs, op });
        if (warm.errors) throw new Error(`${warm.errors} warm-up operations failed: ${String(warm.firstError)}`);
        const size0 = await histogram('ledgerline_append_batch_size');
        const phases0 = await Promise.all(
          PHASES.map((ph) => histogram('ledgerline_append_batch_phase_seconds', `phase="${ph}"`)),
        );
        const run = await runConcurrent({ concurrency, durationMs, op });
        await closeConnections();
        if (run.errors) throw new Error(`${run.errors} operations failed: ${String(run.firstError)}`);
        const size1 = await histogram('ledgerline_append_batch_size');
        const phases1 = await Promise.all(
          PHASES.map((ph) => histogram('ledgerline_append_batch_phase_seconds', `phase="${ph}"`)),
        );
        const phases = Object.fromEntries(
          PHASES.map((ph, j) => [
            ph,
            ((phases1[j].sum - phases0[j].sum) / (phases1[j].count - phases0[j].count)) * 1000,
          ]),
        ) as Measured['phases'];
        return {
          name,
          concurrency,
          baseline,
          run,
          batch: (size1.sum - size0.sum) / (size1.count - size0.count),
          phases,
        };
      };

      const results: Measured[] = [];
      // submit-and-wait: an operation is one request answered {updateId, completionOffset}.
      for (const [i, c] of concurrencies.entries()) {
        results.push(
          await measure('submit-and-wait', c, i === 0, async (w) => {
            const r = await connection(w).send(take().wait);
            if (r.status !== 200) throw new Error(`${r.status} ${r.body.toString('utf8')}`);
          }),
        );
      }
      // async/submit + the completion stream: an operation ends when its completion arrives on the WebSocket.
      const waiting = new Map<string, () => void>();
      const ws = new WebSocket(`ws://127.0.0.1:${PORT}/v2/commands/completions`, [
        'daml.ws.auth',
        `jwt.token.${token}`,
      ]);
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      });
      let failed = 0;
      ws.on('message', (data) => {
        const m = JSON.parse(data.toString());
        const c = m.completionResponse?.Completion?.value;
        if (!c) return;
        if (c.status.code !== 0) failed++;
        waiting.get(c.commandId)?.();
        waiting.delete(c.commandId);
      });
      const end = JSON.parse((await call('GET', '/v2/state/ledger-end', token)).text).offset;
      ws.send(JSON.stringify({ userId: USER, parties, beginExclusive: end }));
      results.push(
        await measure('async/submit + completion stream', ASYNC_CLIENTS, false, async (w) => {
          const req = take();
          const done = new Promise<void>((resolve) => waiting.set(req.commandId, resolve));
          const r = await connection(w).send(req.async);
          if (r.status !== 200) throw new Error(`${r.status} ${r.body.toString('utf8')}`);
          await done;
        }),
      );
      ws.close();
      if (failed) throw new Error(`${failed} rejected completions`);

      console.log();
      printTable([
        ['operation', 'clients', 'ops/s', 'p50 ms', 'p99 ms', 'baseline/s (64)', 'ratio', 'mean batch'],
        ...results.map((r) => [
          r.name,
          String(r.concurrency),
          r.run.opsPerSec,
          r.run.latency.p50,
          r.run.latency.p99,
          r.baseline.opsPerSec,
          `${fmt(r.run.opsPerSec / r.baseline.opsPerSec, 2)}×`,
          r.batch,
        ]),
      ]);
      console.log("\nthe writer's batches, mean ms per batch by phase (server metrics, same window):");
      printTable([
        [
          'operation',
          'clients',
          'lock (incl. previous COMMIT)',
          'state load',
          'decisions',
          'write statement',
          'COMMIT',
        ],
        ...results.map((r) => [r.name, String(r.concurrency), ...PHASES.map((ph) => r.phases[ph])]),
      ]);
      const at64 = results.find((r) => r.name === 'submit-and-wait' && r.concurrency === 64);
      if (at64) {
        const ratio = at64.run.opsPerSec / at64.baseline.opsPerSec;
        console.log(
          `\ngoal at 64 clients (submit-and-wait ≥ 0.5× baseline): ${ratio >= 0.5 ? 'met' : 'MISSED'} (${fmt(at64.run.opsPerSec)}/s, ${fmt(ratio, 2)}×, p99 ${fmt(at64.run.latency.p99)} ms)`,
        );
      }
    } finally {
      server.kill('SIGTERM');
      await new Promise((r) => server.once('exit', r));
    }
  });
}

main().catch((e) => {
  console.error('bench failed:', e);
  process.exit(1);
});
