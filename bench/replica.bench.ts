/**
 * npm run bench:replica — PostgreSQL's own replication under Ledgerline, on a primary and a hot standby this benchmark
 * starts on the machine (initdb, pg_basebackup -R; testkit/replication.ts), all figures same-run ratios:
 *   (a) read throughput: BENCH_REPLICA_CLIENTS clients, each in a loop reading either a WebSocket update stream of 1,000
 *       updates from a random offset or one party's active contracts over the WebSocket, on BENCH_REPLICA_UPDATES updates;
 *       one instance on the primary against two instances, one reading the primary and one the standby
 *       (LEDGER_READ_DATABASE_URL), the clients split between them; the two set-ups alternate, twice each;
 *   (b) executeAndWait from 16 clients with the standby asynchronous against synchronous (synchronous_standby_names = '*',
 *       the setting under which a failover loses no acknowledged write), alternating, twice each;
 *   (c) a prune of BENCH_PRUNE_UPDATES updates (POST /v2/admin/prune; the prunable updates are the benchmark ledger's
 *       creates with their contracts marked archived in SQL, so that pruning deletes them) while 16 clients run
 *       executeAndWait: the executions' p50/p99 during the prune against the same load just before it.
 * Knobs: BENCH_REPLICA_UPDATES (default 20000), BENCH_REPLICA_CLIENTS (default 8), BENCH_DURATION_MS (each window, default
 * 5000), BENCH_PRUNE_UPDATES (default 100000), BENCH_REPLICA_PHASES (default abc).
 */
import 'reflect-metadata';
import type { ChildProcess } from 'node:child_process';
import WebSocket from 'ws';
import { mintHs256Token } from '@ledgerline/auth';
import { openDatabase } from '@ledgerline/store';
import { loadParticipantIdentity } from '@ledgerline/server/infrastructure/participant-identity';
import { seedPartySigningKeys } from '../testkit/signing-keys';
import { postgresBinaries, startReplicatedPair, type ReplicatedPair } from '../testkit/replication';
import { envInt, fmt, printTable, runConcurrent, type RunResult } from './lib';
import { closeFastFetch, fastFetch } from './lib/http-client';
import {
  createNode,
  executeRequest,
  externalParty,
  freshContractId,
  preparedTransaction,
} from '../testkit/external-signing';
import { BENCH_PARTIES, fillUpdateLog, startReadServer } from './lib/update-log';

const UPDATES = envInt('BENCH_REPLICA_UPDATES', 20_000);
const CLIENTS = envInt('BENCH_REPLICA_CLIENTS', 8);
const durationMs = envInt('BENCH_DURATION_MS', 5000);
const PRUNE = envInt('BENCH_PRUNE_UPDATES', 100_000);
const PHASES = process.env.BENCH_REPLICA_PHASES ?? 'abc';
const SECRET = 'bench-replica-secret-0123456789abcdef';
const PORT = 18000 + Math.floor(Math.random() * 1000);
const EXEC_CLIENTS = 16;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function caughtUp(pair: ReplicatedPair): Promise<void> {
  for (;;) {
    const [p] = await pair.primary.query<{ o: string }>('SELECT ledger_offset AS o FROM ledger_head', pair.database);
    const [s] = await pair.standby.query<{ o: string }>('SELECT ledger_offset AS o FROM ledger_head', pair.database);
    if (p.o === s.o) return;
    await sleep(100);
  }
}

/** Messages of one WebSocket request until the server closes it. */
function wsCount(port: number, path: string, token: string, request: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`, ['daml.ws.auth', `jwt.token.${token}`]);
    let n = 0;
    ws.on('open', () => ws.send(JSON.stringify(request)));
    ws.on('message', (data) => {
      const text = data.toString();
      if (text.includes('"code"')) reject(new Error(text.slice(0, 300)));
      n++;
    });
    ws.on('close', () => resolve(n));
    ws.on('error', reject);
  });
}

async function main(): Promise<void> {
  if (!postgresBinaries())
    throw new Error('bench:replica needs PostgreSQL server binaries (initdb, pg_ctl, pg_basebackup, postgres)');
  const pair = await startReplicatedPair({ database: 'bench' });
  const servers: ChildProcess[] = [];
  const stopAll = async () => {
    for (const s of servers.splice(0)) {
      s.kill('SIGTERM');
      await new Promise((r) => s.once('exit', r));
    }
  };
  try {
    const primaryUrl = pair.primary.url('bench');
    const standbyUrl = pair.standby.url('bench');
    const t0 = performance.now();
    // The first server start migrates and creates the identity; the fill writes through the store.
    servers.push(await startReadServer(primaryUrl, PORT, SECRET, { LEDGER_DB_POOL_SIZE: '8' }));
    await fillUpdateLog(primaryUrl, UPDATES);
    await caughtUp(pair);
    console.log(
      `primary + standby up, ${UPDATES} updates written and replicated in ${fmt((performance.now() - t0) / 1000)} s`,
    );
    const database = openDatabase(primaryUrl, { max: 2 });
    const identity = await loadParticipantIdentity(database.db, 'participant1', ['global']);
    const participantId = identity.participantId;
    const adminToken = await mintHs256Token({
      secret: SECRET,
      userId: 'participant_admin',
      participantId,
      expiresInSeconds: 3600,
    });
    const createUser = async (id: string, right: string) => {
      const res = await fastFetch(`http://127.0.0.1:${PORT}/v2/users`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
        body: JSON.stringify({ user: { id, primaryParty: '' }, rights: [{ kind: { [right]: { value: {} } } }] }),
      });
      if (res.status !== 200) throw new Error(`create user: ${res.status} ${await res.text()}`);
    };
    await createUser('bench-reader', 'CanReadAsAnyParty');
    await createUser('bench-exec', 'CanExecuteAsAnyParty');
    const readerToken = await mintHs256Token({
      secret: SECRET,
      userId: 'bench-reader',
      participantId,
      expiresInSeconds: 3600,
    });
    const rows: Array<Array<string | number>> = [['measure', 'A', 'B', 'B/A']];

    if (PHASES.includes('a')) {
      // A second instance reading the standby (same primary for writes and the ledger end).
      servers.push(
        await startReadServer(primaryUrl, PORT + 1, SECRET, {
          LEDGER_DB_POOL_SIZE: '8',
          LEDGER_READ_DATABASE_URL: standbyUrl,
        }),
      );
      const readOp = async (port: number, i: number) => {
        if (i % 2 === 0) {
          const begin = Math.floor(Math.random() * (UPDATES - 1000));
          return wsCount(port, '/v2/updates', readerToken, {
            beginExclusive: begin,
            endInclusive: begin + 1000,
            filter: { filtersForAnyParty: {} },
          });
        }
        const party = BENCH_PARTIES[i % BENCH_PARTIES.length];
        return wsCount(port, '/v2/state/active-contracts', readerToken, {
          activeAtOffset: UPDATES,
          eventFormat: { filtersByParty: { [party]: { cumulative: [] } }, verbose: false },
        });
      };
      const measure = async (ports: number[]) => {
        let items = 0;
        let counting = false;
        const r = await runConcurrent({
          concurrency: CLIENTS,
          durationMs,
          warmupMs: 500,
          onWindow: (edge) => (counting = edge === 'start'),
          op: async (w, i) => {
            const got = await readOp(ports[w % ports.length], i);
            if (counting) items += got;
          },
        });
        if (r.errors) throw new Error(`reads failed: ${String(r.firstError)}`);
        return { perSec: (items / r.elapsedMs) * 1000, r };
      };
      const one: number[] = [];
      const two: number[] = [];
      for (let round = 0; round < 2; round++) {
        one.push((await measure([PORT])).perSec);
        two.push((await measure([PORT, PORT + 1])).perSec);
      }
      for (let i = 0; i < 2; i++)
        rows.push([
          `(a) reads, items/s, round ${i + 1}: A one instance on the primary, B + one on the standby`,
          one[i],
          two[i],
          `${fmt(two[i] / one[i], 2)}×`,
        ]);
      servers.pop()!.kill('SIGTERM');
    }

    // executeAndWait: externally signed creates, prepared before the windows.
    const parties = Array.from({ length: 32 }, (_, i) => externalParty(`replica-${i}`));
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
    const execToken = await mintHs256Token({
      secret: SECRET,
      userId: 'bench-exec',
      participantId,
      expiresInSeconds: 3600,
    });
    let n = 0;
    const execute = async () => {
      const signer = parties[n % parties.length];
      const pt = preparedTransaction({
        nodes: [
          createNode('0', { contractId: freshContractId(), signatories: [signer.party], stakeholders: [signer.party] }),
        ],
        actAs: [signer.party],
        synchronizerId: identity.defaultSynchronizer.id,
        commandId: `replica-${n++}`,
      });
      const res = await fastFetch(`http://127.0.0.1:${PORT}/v2/interactive-submission/executeAndWait`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${execToken}` },
        body: JSON.stringify(executeRequest(pt, [signer])),
      });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`executeAndWait: ${res.status} ${text.slice(0, 300)}`);
    };
    const execWindow = (ms = durationMs): Promise<RunResult> =>
      runConcurrent({ concurrency: EXEC_CLIENTS, durationMs: ms, warmupMs: 500, op: execute });
    const setSynchronous = async (on: boolean) => {
      await pair.primary.query(`ALTER SYSTEM SET synchronous_standby_names = '${on ? '*' : ''}'`);
      await pair.primary.query('SELECT pg_reload_conf()');
      for (;;) {
        const r = await pair.primary.query<{ s: string }>('SELECT sync_state AS s FROM pg_stat_replication');
        if (r.some((x) => x.s === (on ? 'sync' : 'async'))) return;
        await sleep(50);
      }
    };

    if (PHASES.includes('b')) {
      await execWindow(3000); // warm the server
      for (let round = 1; round <= 2; round++) {
        await setSynchronous(false);
        const a = await execWindow();
        await setSynchronous(true);
        const b = await execWindow();
        if (a.errors || b.errors) throw new Error(`executeAndWait failed: ${String(a.firstError ?? b.firstError)}`);
        rows.push([
          `(b) executeAndWait/s, ${EXEC_CLIENTS} clients, round ${round}: A asynchronous standby, B synchronous`,
          a.opsPerSec,
          b.opsPerSec,
          `${fmt(b.opsPerSec / a.opsPerSec, 2)}×`,
        ]);
        rows.push([
          `(b) executeAndWait p99 ms, round ${round}`,
          a.latency.p99,
          b.latency.p99,
          `${fmt(b.latency.p99 / a.latency.p99, 2)}×`,
        ]);
      }
      await setSynchronous(false);
    }

    if (PHASES.includes('c')) {
      // More creates to prune, then their contracts marked archived so that the prune deletes their updates.
      const [{ o }] = await pair.primary.query<{ o: string }>(
        'SELECT ledger_offset AS o FROM ledger_head',
        pair.database,
      );
      const more = Math.max(0, PRUNE - Number(o));
      const tf = performance.now();
      if (more) await fillUpdateLog(primaryUrl, more, UPDATES);
      const [{ end }] = await pair.primary.query<{ end: string }>(
        'SELECT ledger_offset AS end FROM ledger_head',
        pair.database,
      );
      const upTo = Math.min(PRUNE, Number(end));
      await pair.primary.query(
        `UPDATE contracts SET status = 'archived' WHERE created_offset <= ${upTo}`,
        pair.database,
      );
      await pair.primary.query('VACUUM ANALYZE', pair.database);
      console.log(`(c) ${upTo} updates to prune, written in ${fmt((performance.now() - tf) / 1000)} s`);
      const before = await execWindow();
      let pruneMs = 0;
      let during: RunResult | null = null;
      const pruning = (async () => {
        const t = performance.now();
        const res = await fastFetch(`http://127.0.0.1:${PORT}/v2/admin/prune`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
          body: JSON.stringify({ pruneUpTo: upTo }),
        });
        const text = await res.text();
        if (res.status !== 200) throw new Error(`prune: ${res.status} ${text}`);
        pruneMs = performance.now() - t;
      })();
      // The load runs from before the prune starts until it ends.
      let stop = false;
      const load = (async () => {
        const results: RunResult[] = [];
        while (!stop) results.push(await runConcurrent({ concurrency: EXEC_CLIENTS, durationMs: 500, op: execute }));
        return results;
      })();
      await pruning;
      stop = true;
      const windows = await load;
      const samples = windows.flatMap((w) => w.samples ?? []);
      const q = (xs: number[], p: number) =>
        [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];
      const ops = windows.reduce((s, w) => s + w.ops, 0);
      const elapsed = windows.reduce((s, w) => s + w.elapsedMs, 0);
      during = {
        ...before,
        ops,
        elapsedMs: elapsed,
        opsPerSec: (ops / elapsed) * 1000,
        latency: { ...before.latency, p50: q(samples, 50), p99: q(samples, 99), max: Math.max(...samples) },
      };
      const [{ left }] = await pair.primary.query<{ left: string }>(
        `SELECT count(*) AS left FROM ledger_updates WHERE ledger_offset <= ${upTo}`,
        pair.database,
      );
      console.log(
        `(c) pruned ${upTo} updates in ${fmt(pruneMs / 1000)} s (${left} left at or below the offset); ${ops} executions committed meanwhile`,
      );
      rows.push([
        `(c) executeAndWait/s: A before the prune, B during it (${fmt(pruneMs / 1000)} s)`,
        before.opsPerSec,
        during.opsPerSec,
        `${fmt(during.opsPerSec / before.opsPerSec, 2)}×`,
      ]);
      rows.push([
        '(c) executeAndWait p50 ms',
        before.latency.p50,
        during.latency.p50,
        `${fmt(during.latency.p50 / before.latency.p50, 2)}×`,
      ]);
      rows.push([
        '(c) executeAndWait p99 ms',
        before.latency.p99,
        during.latency.p99,
        `${fmt(during.latency.p99 / before.latency.p99, 2)}×`,
      ]);
      rows.push(['(c) executeAndWait max ms', before.latency.max, during.latency.max, '-']);
    }
    await database.close();
    printTable(rows);
  } finally {
    await stopAll();
    await closeFastFetch();
    pair.remove();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
