/**
 * npm run bench:execute — POST /v2/interactive-submission/executeAndWait throughput and latency at 16 and 64 concurrent
 * clients, each request a fresh externally signed create (built, hashed and Ed25519-signed before the timed window), next
 * to the append baseline measured in the same run on the same server (one single-row INSERT + COMMIT per append, bench/lib).
 * Then where the time goes: per-request CPU of decode, hash and signature verification measured in isolation on the same
 * requests, and the writer's batches (size, duration, and their time by phase: lock, state load, decisions, write
 * statement, COMMIT) from the server's metrics.
 *
 * The service runs as a child process (node with BENCH_SERVER_NODE_ARGS and
 * dist/apps/server/src/main.js) on a throwaway database; this process is the
 * load generator: the timed requests go over bench/lib/raw-http (one keep-alive socket per client, request bytes serialised
 * before the timed window); the set-up calls (party onboarding) use bench/lib/http-client.
 * Knobs: BENCH_DATABASE_URL, BENCH_CONCURRENCY (default "16,64"), BENCH_DURATION_MS (default 5000), BENCH_WARMUP_MS (before
 * the first measurement, default 10000), BENCH_REWARM_MS (before each later one, default 1000), BENCH_MAX_RATE (executions/s
 * prepared for, default 4000), BENCH_PARTIES (distinct external parties, default 64), BENCH_SERVER_MAINS (comma-separated
 * server entry points, one instance each: compares builds side by side in the same window, see below).
 * Target at 64 clients: ≥ 2,500/s, ≥ 0.5× baseline, p99 ≤ 100 ms.
 *
 * Why the long first warm-up: V8 keeps optimising the server's hot code for several seconds after load starts. With a 1 s
 * warm-up, perf put 29 % of the server's CPU in V8's optimising compiler at the start of the window (0.1 % after 25 s), and
 * runs measured 19–28 % fewer executions/s than the same code after 15 s (interleaved runs). A service runs warm;
 * the benchmark measures it warm. The CPU and batch figures cover the measured window only.
 */
import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { PreparedTransaction } from '@canton-network/core-ledger-proto';
import { hashPreparedTransaction, parsePublicKey } from '@ledgerline/canton';
import { mintHs256Token } from '@ledgerline/auth';
import { openDatabase } from '@ledgerline/store';
import { seedPartySigningKeys } from '../testkit/signing-keys';
import { loadParticipantIdentity } from '@ledgerline/server/infrastructure/participant-identity';
import { signatureVerifierFor } from '@ledgerline/server/infrastructure/runtime';
import { loadConfig } from '@ledgerline/server/config';
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
import { cpuPerOp, cpuSnapshot, machinePerOp, processTreeMs, type CpuSnapshot } from './lib/cpu';
import {
  createNode,
  executeRequest,
  externalParty,
  freshContractId,
  preparedTransaction,
  type ExternalParty,
} from '../testkit/external-signing';

const concurrencies = (process.env.BENCH_CONCURRENCY ?? '16,64').split(',').map((s) => Number(s.trim()));
const durationMs = envInt('BENCH_DURATION_MS', 5000);
const warmupMs = envInt('BENCH_WARMUP_MS', 10_000);
const rewarmMs = envInt('BENCH_REWARM_MS', 1000);
const maxRate = envInt('BENCH_MAX_RATE', 4000);
const baselineWarmupMs = 1000;
const SAMPLES = 2000;
const partyCount = envInt('BENCH_PARTIES', 64);
const SECRET = 'bench-secret-bench-secret-bench';
const PORT = 17000 + Math.floor(Math.random() * 1000);
/**
 * Server entry points to compare (BENCH_SERVER_MAINS, e.g. an older build's dist/apps/server/src/main.js and this one's):
 * one instance each, all on the one database and under the same load at the same time, so their CPU per execution is
 * measured under the same conditions of the host (whose speed drifts by tens of per cent between runs minutes apart).
 */
const MAINS = (process.env.BENCH_SERVER_MAINS ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean)
  .map((m) => path.resolve(m));
/** Service instances on one database (ports PORT, PORT+1, …); client w talks to instance w mod INSTANCES. */
const INSTANCES = MAINS.length || envInt('BENCH_INSTANCES', 1);
const USER = 'bench-app';
/** The writer's batch phases, as the server's `ledgerline_append_batch_phase_seconds` labels them. */
const PHASES = ['lock', 'load', 'decide', 'write', 'commit'] as const;

async function post(
  pathname: string,
  body: string | Buffer,
  token: string,
  instance = 0,
): Promise<{ status: number; text: string }> {
  const res = await fastFetch(`http://127.0.0.1:${PORT + instance}${pathname}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body,
  });
  return { status: res.status, text: await res.text() };
}

async function get(pathname: string, token?: string, instance = 0): Promise<{ status: number; text: string }> {
  const res = await fetch(`http://127.0.0.1:${PORT + instance}${pathname}`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return { status: res.status, text: await res.text() };
}

async function startServer(url: string, instance: number): Promise<ChildProcess> {
  const main = MAINS[instance] ?? path.resolve(__dirname, '../apps/server/src/main.js');
  const child = spawn(process.execPath, [...serverNodeArgs(), main], {
    env: {
      ...process.env,
      DATABASE_URL: url,
      PORT: String(PORT + instance),
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
      if ((await get('/livez', undefined, instance)).status < 500) return child;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error('server did not start');
}

/** Sum and count of a Prometheus histogram in the servers' /metrics (summed over instances and workers). */
async function histogram(name: string, label?: string): Promise<{ sum: number; count: number }> {
  const total = { sum: 0, count: 0 };
  for (let i = 0; i < INSTANCES; i++) {
    const text = (await get('/metrics', undefined, i)).text;
    // With LEDGER_WORKERS there is one series per worker (label `worker`): add them up. `label` (e.g. phase="lock")
    // picks the series that carry it.
    const labels = label ? `\\{[^}]*${label}[^}]*\\}` : '(?:\\{[^}]*\\})?';
    const num = (suffix: string) => {
      const all = [...text.matchAll(new RegExp(`^${name}_${suffix}${labels} (\\S+)$`, 'gm'))];
      return all.length ? all.reduce((sum, m) => sum + Number(m[1]), 0) : NaN;
    };
    total.sum += num('sum');
    total.count += num('count');
  }
  return total;
}

/**
 * One request, ready to send. The load generator shares the machine with the server, so it keeps only the request's bytes
 * (no decoded transaction, no string to encode per send): tens of thousands of decoded transactions kept alive made its
 * garbage collector a visible share of the machine's CPU.
 */
interface Prepared {
  /** The whole HTTP request (request line, headers, body), for the load generator's raw connections (bench/lib/raw-http). */
  request: Buffer;
  signer: ExternalParty;
}

/** A request kept whole for the "measured alone" stages after the runs. */
interface Sample extends Prepared {
  text: string;
  pt: PreparedTransaction;
}

async function main(): Promise<void> {
  console.log(
    `executeAndWait benchmark: ${durationMs} ms per measurement after ${warmupMs} ms warm-up (${rewarmMs} ms before later ones); clients ${concurrencies.join(', ')}; ${partyCount} parties; ${INSTANCES} instance(s) of ${process.env.LEDGER_WORKERS ?? 1} worker(s)`,
  );
  await withBenchDatabase({ label: 'execute', migrate: true }, async ({ url }) => {
    // One after the other: the first start creates the participant's identity, which the others then load.
    const servers: ChildProcess[] = [];
    try {
      // Inside the try: if one instance fails to start, the ones already running are stopped with the rest.
      for (let i = 0; i < INSTANCES; i++) servers.push(await startServer(url, i));
      // The participant's identity (generated by the server at its first start) names the token audience and the synchronizer.
      const database = openDatabase(url, { max: 2 });
      const identity = await loadParticipantIdentity(database.db, 'participant1', ['global', 'secondary']);
      const participantId = identity.participantId;
      const sync = identity.defaultSynchronizer.id;
      const adminToken = await mintHs256Token({ secret: SECRET, userId: 'participant_admin', participantId });

      // External parties with registered keys, and a user that may execute as any party.
      const parties = Array.from({ length: partyCount }, (_, i) => externalParty(`bench-${i}`));
      for (const p of parties) {
        await seedPartySigningKeys(database.db, p.party, [
          {
            fingerprint: p.fingerprint,
            keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519',
            keyFormat: 'CRYPTO_KEY_FORMAT_RAW',
            publicKey: p.rawPublicKey.toString('base64'),
          },
        ]);
      }
      await database.close();
      const created = await post(
        '/v2/users',
        JSON.stringify({
          user: { id: USER, primaryParty: '' },
          rights: [{ kind: { CanExecuteAsAnyParty: { value: {} } } }],
        }),
        adminToken,
      );
      if (created.status !== 200) throw new Error(`create user: ${created.status} ${created.text}`);
      const token = await mintHs256Token({ secret: SECRET, userId: USER, participantId, expiresInSeconds: 3600 });

      // Fresh, signed creates, prepared before any timed window (enough for BENCH_MAX_RATE during every warm-up and window).
      const windowsMs = concurrencies.reduce((sum, _, i) => sum + (i === 0 ? warmupMs : rewarmMs) + durationMs, 0);
      const total = SAMPLES + Math.ceil((windowsMs / 1000) * maxRate);
      const t0 = performance.now();
      const prepared: Prepared[] = [];
      const requestHeaders = {
        host: '127.0.0.1',
        'content-type': 'application/json',
        authorization: `Bearer ${token}`,
      };
      let bodyBytes = 0;
      const samples: Sample[] = [];
      for (let i = 0; i < total; i++) {
        const signer = parties[i % parties.length];
        const pt = preparedTransaction({
          nodes: [
            createNode('0', {
              contractId: freshContractId(),
              signatories: [signer.party],
              stakeholders: [signer.party],
            }),
          ],
          actAs: [signer.party],
          synchronizerId: sync,
          commandId: `bench-${i}`,
        });
        const text = JSON.stringify(executeRequest(pt, [signer]));
        bodyBytes = Buffer.byteLength(text);
        const request = serialiseRequest(
          'POST',
          '/v2/interactive-submission/executeAndWait',
          requestHeaders,
          Buffer.from(text),
        );
        if (i < SAMPLES) samples.push({ request, text, pt, signer });
        else prepared.push({ request, signer });
      }
      console.log(
        `prepared and signed ${total} requests in ${fmt((performance.now() - t0) / 1000)} s (${fmt(bodyBytes)} bytes of body each)`,
      );

      let next = 0;
      // One keep-alive connection per client (worker), opened on its first request and closed after each window.
      const connections = new Map<number, RawHttpConnection>();
      const results: Array<{
        concurrency: number;
        baseline: RunResult;
        exec: RunResult;
        batch: number;
        batchMs: number;
        cpu?: { server: number; client: number; rest: number; steal: number };
        /** The writer's batches over the window: mean ms per batch in each phase (see BatchPhases). */
        phases: Record<(typeof PHASES)[number], number>;
        /** Busy CPU of the whole machine per operation (µs) and busy share of its cores: baseline window, execution window. */
        machine: { baseline?: { us: number; busy: number }; exec?: { us: number; busy: number } };
        /** Per instance: executions in the window and the instance's CPU per execution (µs). */
        instances: Array<{ executions: number; serverUs: number }>;
      }> = [];
      const doneBy = new Array<number>(INSTANCES).fill(0);
      const op = async (worker: number) => {
        const p = prepared[next++];
        if (!p) throw new Error(`ran out of prepared requests: the server ran faster than BENCH_MAX_RATE=${maxRate}/s`);
        let conn = connections.get(worker);
        if (!conn) connections.set(worker, (conn = new RawHttpConnection('127.0.0.1', PORT + (worker % INSTANCES))));
        const r = await conn.send(p.request);
        if (r.status !== 200) throw new Error(`${r.status} ${r.body.toString('utf8')}`);
        doneBy[worker % INSTANCES]++;
      };
      for (const [i, concurrency] of concurrencies.entries()) {
        // The machine's CPU over the baseline's measured window, to set against an execution's.
        const baseCpu: Array<CpuSnapshot | undefined> = [];
        const baseline = await appendBaseline(url, {
          concurrency: 64,
          durationMs,
          warmupMs: baselineWarmupMs,
          onWindow: () => baseCpu.push(cpuSnapshot([])),
        });
        const warm = await runConcurrent({ concurrency, durationMs: i === 0 ? warmupMs : rewarmMs, op });
        if (warm.errors) throw new Error(`${warm.errors} warm-up executions failed: ${String(warm.firstError)}`);
        const sizeBefore = await histogram('ledgerline_append_batch_size');
        const durBefore = await histogram('ledgerline_append_batch_duration_seconds');
        const phasesBefore = await Promise.all(
          PHASES.map((ph) => histogram('ledgerline_append_batch_phase_seconds', `phase="${ph}"`)),
        );
        const cpuBefore = cpuSnapshot(servers.map((s) => s.pid!));
        const doneBefore = [...doneBy];
        const instBefore = servers.map((s) => processTreeMs([s.pid!]));
        const exec = await runConcurrent({ concurrency, durationMs, op });
        const instAfter = servers.map((s) => processTreeMs([s.pid!]));
        const cpuAfter = cpuSnapshot(servers.map((s) => s.pid!));
        const instances = servers.map((_, j) => {
          const executions = doneBy[j] - doneBefore[j];
          return { executions, serverUs: executions ? ((instAfter[j] - instBefore[j]) * 1000) / executions : NaN };
        });
        for (const c of connections.values()) c.close();
        connections.clear();
        await closeFastFetch();
        const sizeAfter = await histogram('ledgerline_append_batch_size');
        const durAfter = await histogram('ledgerline_append_batch_duration_seconds');
        const phasesAfter = await Promise.all(
          PHASES.map((ph) => histogram('ledgerline_append_batch_phase_seconds', `phase="${ph}"`)),
        );
        const phases = Object.fromEntries(
          PHASES.map((ph, j) => [
            ph,
            ((phasesAfter[j].sum - phasesBefore[j].sum) / (phasesAfter[j].count - phasesBefore[j].count)) * 1000,
          ]),
        ) as Record<(typeof PHASES)[number], number>;
        if (exec.errors) throw new Error(`${exec.errors} executions failed: ${String(exec.firstError)}`);
        const batches = sizeAfter.count - sizeBefore.count;
        // Every committed work of the measured window against the CPU of the same window.
        const cpu = cpuPerOp(cpuBefore, cpuAfter, sizeAfter.sum - sizeBefore.sum);
        const machine = {
          baseline: machinePerOp(baseCpu[0], baseCpu[1], baseline.ops, baseline.elapsedMs),
          exec: machinePerOp(cpuBefore, cpuAfter, exec.ops, exec.elapsedMs),
        };
        results.push({
          concurrency,
          baseline,
          exec,
          machine,
          batch: (sizeAfter.sum - sizeBefore.sum) / batches,
          batchMs: ((durAfter.sum - durBefore.sum) / batches) * 1000,
          cpu,
          phases,
          instances,
        });
      }

      // Where the time goes: the CPU stages of one execution, measured alone on requests of the same shape.
      const key = (s: ExternalParty) =>
        parsePublicKey({
          format: 'CRYPTO_KEY_FORMAT_RAW',
          keyData: s.rawPublicKey,
          keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519',
        });
      const keys = new Map(parties.map((p) => [p.party, key(p)]));
      const stage = (fn: (p: Sample) => unknown) => {
        const s = performance.now();
        for (const p of samples) fn(p);
        return ((performance.now() - s) * 1000) / samples.length;
      };
      const parsed = samples.map((p) => JSON.parse(p.text));
      const jsonUs = stage((p) => JSON.parse(p.text));
      const decodeUs =
        stage((p) => PreparedTransaction.fromBinary(Buffer.from(JSON.parse(p.text).preparedTransaction, 'base64'))) -
        jsonUs;
      const hashUs = stage((p) => hashPreparedTransaction(p.pt, 2));
      // The server's check with the backend the servers above were configured with, in place (no worker thread).
      const verifier = signatureVerifierFor({ ...loadConfig(), ed25519Worker: false });
      let k = 0;
      const verifyUs =
        stage((p) => {
          const sig = parsed[k++].partySignatures.signatures[0].signatures[0];
          return verifier.verify(
            { format: sig.format, signature: sig.signature, signingAlgorithmSpec: sig.signingAlgorithmSpec },
            keys.get(p.signer.party)!,
            hashPreparedTransaction(p.pt, 2),
          );
        }) - hashUs;

      console.log();
      printTable([
        [
          'clients',
          'executions/s',
          'p50 ms',
          'p99 ms',
          'baseline/s (64)',
          'ratio',
          'mean batch',
          'batch ms',
          'CPU µs/exec: server',
          'postgres+rest',
          'load gen',
          'steal',
        ],
        ...results.map((r) => [
          String(r.concurrency),
          r.exec.opsPerSec,
          r.exec.latency.p50,
          r.exec.latency.p99,
          r.baseline.opsPerSec,
          `${fmt(r.exec.opsPerSec / r.baseline.opsPerSec, 2)}×`,
          r.batch,
          r.batchMs,
          r.cpu ? r.cpu.server : '-',
          r.cpu ? r.cpu.rest : '-',
          r.cpu ? r.cpu.client : '-',
          r.cpu ? r.cpu.steal : '-',
        ]),
      ]);
      console.log('\nthe whole machine (every process, all cores), each over its own measured window:');
      printTable([
        [
          'clients',
          'CPU µs/op: baseline',
          'CPU µs/op: execution',
          'execution ÷ baseline',
          'cores busy: baseline',
          'cores busy: execution',
        ],
        ...results.map((r) => {
          const b = r.machine.baseline;
          const e = r.machine.exec;
          const pct = (x?: { busy: number }) => (x ? `${fmt(x.busy * 100)} %` : '-');
          return [
            String(r.concurrency),
            b ? b.us : '-',
            e ? e.us : '-',
            b && e ? `${fmt(e.us / b.us, 2)}×` : '-',
            pct(b),
            pct(e),
          ];
        }),
      ]);
      console.log(
        "\nthe writer's batches, mean ms per batch by phase (server metrics, same window; batches whose transaction failed report none):",
      );
      printTable([
        [
          'clients',
          'mean batch',
          'lock (incl. previous COMMIT)',
          'state load',
          'decisions',
          'write statement',
          'COMMIT',
        ],
        ...results.map((r) => [String(r.concurrency), r.batch, ...PHASES.map((ph) => r.phases[ph])]),
      ]);
      if (MAINS.length) {
        console.log('\nper instance, same window (server CPU from /proc, 10 ms ticks):');
        printTable([
          ['clients', 'instance', 'server entry point', 'executions', 'server CPU µs/exec'],
          ...results.flatMap((r) =>
            r.instances.map((x, j) => [
              String(r.concurrency),
              String(j),
              path.relative(process.cwd(), MAINS[j]),
              String(x.executions),
              x.serverUs,
            ]),
          ),
        ]);
      }
      console.log('\nper-execution CPU, measured alone (µs):');
      printTable([
        ['JSON.parse body', 'base64 + protobuf decode', 'hash V2', 'Ed25519 verify'],
        [jsonUs, decodeUs, hashUs, verifyUs],
      ]);
      const at64 = results.find((r) => r.concurrency === 64);
      if (at64) {
        const ratio = at64.exec.opsPerSec / at64.baseline.opsPerSec;
        const ok = at64.exec.opsPerSec >= 2500 && ratio >= 0.5 && at64.exec.latency.p99 <= 100;
        console.log(
          `\ntarget at 64 clients (≥ 2,500/s, ≥ 0.5× baseline, p99 ≤ 100 ms): ${ok ? 'met' : 'MISSED'} (${fmt(at64.exec.opsPerSec)}/s, ${fmt(ratio, 2)}×, p99 ${fmt(at64.exec.latency.p99)} ms)`,
        );
      }
      if (process.env.BENCH_JSON)
        console.log(
          JSON.stringify({
            results: results.map((r) => ({
              ...r,
              baseline: { ...r.baseline, firstError: undefined },
              exec: { ...r.exec, firstError: undefined },
            })),
            jsonUs,
            decodeUs,
            hashUs,
            verifyUs,
          }),
        );
    } finally {
      for (const server of servers) {
        server.kill('SIGTERM');
        await new Promise((r) => server.once('exit', r));
      }
    }
  });
}

main().catch((e) => {
  console.error('bench failed:', e);
  process.exit(1);
});
