/**
 * npm run bench:reassign — unassign+assign round trips per second at 16 concurrent clients, next to the append baseline
 * (one single-row INSERT + COMMIT per append through pg) measured in the same run on the same PostgreSQL.
 *
 * For context it also measures the event store alone (one trivial update per work). Two reassignment figures: through the HTTP API (JWT, claims, JSON, the whole service) and in-process through the
 * CommandBus (the command handler and the event store only). Each client owns one contract and moves it A → B → A …;
 * a round trip is an unassign followed by the assign of its reassignment id.
 *
 * PostgreSQL: BENCH_DATABASE_URL (a server; a fresh database is created on it), else an embedded PostgreSQL in a temp
 * folder. Knobs: BENCH_CLIENTS (16), BENCH_SECONDS (8 per phase).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { CommandBus } from '@nestjs/cqrs';
import { contractIdFromSeed } from '@ledgerline/canton';
import { decideCreateUser, TRANSACTION_COMMITTED, type Claims, type StoredTransaction } from '@ledgerline/domain';
import { startEmbeddedPostgres, UsersRepository } from '@ledgerline/store';
import { mintHs256Token } from '@ledgerline/auth';
import { createApp } from '../apps/server/src/app';
import { loadConfig } from '../apps/server/src/config';
import { makeLogger, startRuntime, type LedgerRuntime } from '../apps/server/src/infrastructure/runtime';
import { SubmitReassignmentCommand } from '../apps/server/src/modules/reassignment/commands/submit-reassignment.command';
import type { ReassignmentResult } from '../apps/server/src/modules/reassignment/commands/submit-reassignment.handler';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 16);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const SECRET = 'bench-secret-bench-secret-bench';

async function serverUrl(): Promise<{ adminUrl: string; stop: () => Promise<void> }> {
  if (process.env.BENCH_DATABASE_URL) return { adminUrl: process.env.BENCH_DATABASE_URL, stop: async () => undefined };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerline-bench-pg-'));
  const pg = await startEmbeddedPostgres({ dataDir: dir, port: 30000 + Math.floor(Math.random() * 20000) });
  return {
    adminUrl: pg.url,
    stop: async () => {
      await pg.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

/** Runs `clients` loops of `op` for `seconds` (after a 1 s warm-up) and returns operations per second. */
async function measure(clients: number, seconds: number, op: (client: number) => Promise<void>): Promise<{ perSecond: number; count: number; p50: number; p99: number }> {
  let measuring = false;
  let stop = false;
  let count = 0;
  const latencies: number[] = [];
  const loops = Array.from({ length: clients }, async (_, c) => {
    while (!stop) {
      const t = performance.now();
      await op(c);
      if (measuring) {
        count++;
        latencies.push(performance.now() - t);
      }
    }
  });
  await new Promise((r) => setTimeout(r, 1000));
  measuring = true;
  const started = performance.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  measuring = false;
  const elapsed = (performance.now() - started) / 1000;
  stop = true;
  await Promise.all(loops);
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
  return { perSecond: count / elapsed, count, p50: q(0.5), p99: q(0.99) };
}

const partyId = (hint: string) => `${hint}::1220${createHash('sha256').update(hint).digest('hex')}`;

async function createContracts(runtime: LedgerRuntime, owner: string, synchronizerId: string, tag: string): Promise<string[]> {
  const ids = Array.from({ length: CLIENTS }, (_, i) => contractIdFromSeed(`${tag}-${i}-${randomBytes(4).toString('hex')}`));
  const data: StoredTransaction = {
    commandId: `bench-create-${tag}`,
    workflowId: '',
    effectiveAt: '2025-01-01T00:00:00.000000Z',
    externalTransactionHash: null,
    events: ids.map((contractId, nodeId) => ({
      CreatedEvent: {
        nodeId,
        contractId,
        templateId: `${'ab'.repeat(32)}:Bench:Token`,
        packageName: 'bench',
        representativePackageId: 'ab'.repeat(32),
        createArgument: { owner },
        createdEventBlob: '',
        signatories: [owner],
        observers: [],
        createdAt: '2025-01-01T00:00:00.000000Z',
        contractKey: null,
        contractKeyHash: '',
        acsDelta: true,
      },
    })),
  };
  await runtime.eventStore.append([{ type: TRANSACTION_COMMITTED, stream: `bench:${tag}`, data, update: { kind: 'Transaction', synchronizerId, parties: [owner] } }]);
  return ids;
}

const body = (kind: 'unassign' | 'assign', id: string, source: string, target: string, submitter: string, n: number) => ({
  reassignmentCommands: {
    commandId: `bench-${kind}-${n}-${randomBytes(6).toString('hex')}`,
    submitter,
    commands: [
      kind === 'unassign'
        ? { command: { UnassignCommand: { value: { contractId: id, source, target } } } }
        : { command: { AssignCommand: { value: { reassignmentId: id, source, target } } } },
    ],
  },
  eventFormat: { filtersByParty: { [submitter]: { cumulative: [] } } },
});

async function main(): Promise<void> {
  const { adminUrl, stop } = await serverUrl();
  const dbName = `ll_bench_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const url = withDatabase(adminUrl, dbName);
  const results: Array<[string, Awaited<ReturnType<typeof measure>>]> = [];

  // ---- Baseline: one single-row INSERT + COMMIT per append, one connection per client.
  {
    const clients = await Promise.all(Array.from({ length: CLIENTS }, async () => {
      const c = new Client({ connectionString: url });
      await c.connect();
      return c;
    }));
    await clients[0].query('CREATE TABLE bench_append (id bigserial PRIMARY KEY, payload text NOT NULL)');
    const payload = 'x'.repeat(200);
    results.push(['append baseline (INSERT + COMMIT)', await measure(CLIENTS, SECONDS, (c) => clients[c].query('INSERT INTO bench_append (payload) VALUES ($1)', [payload]).then(() => undefined))]);
    await Promise.all(clients.map((c) => c.end()));
  }

  // ---- The service.
  const config = loadConfig({ DATABASE_URL: url, LEDGER_JWT_SECRET: SECRET, LEDGER_LOG_LEVEL: 'silent', LEDGER_DB_POOL_SIZE: '20' });
  const runtime = await startRuntime(config, makeLogger(config));
  const app = await createApp(runtime);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  const [A, B] = runtime.identity.synchronizers.map((s) => s.id);
  const owner = partyId('bench-owner');
  const users = new UsersRepository();
  await runtime.eventStore.execute(async (tx) =>
    tx.append(decideCreateUser(await users.state(tx.db, 'bench'), { id: 'bench', primaryParty: '', isDeactivated: false, annotations: {}, identityProviderId: '' }, [{ kind: 'CanActAs', party: owner }])),
  );
  const token = await mintHs256Token({ secret: SECRET, userId: 'bench', participantId: runtime.identity.participantId, expiresInSeconds: 3600 });
  const claims: Claims = { userId: 'bench', identityProviderId: '', rights: [{ kind: 'CanActAs', party: owner }] };

  /** One client's contract and where it is. */
  const roundTrips = async (tag: string, submit: (b: ReturnType<typeof body>) => Promise<{ reassignmentId: string }>) => {
    const ids = await createContracts(runtime, owner, A, tag);
    const at = ids.map(() => A);
    let n = 0;
    return measure(CLIENTS, SECONDS, async (c) => {
      const [source, target] = at[c] === A ? [A, B] : [B, A];
      const { reassignmentId } = await submit(body('unassign', ids[c], source, target, owner, n++));
      await submit(body('assign', reassignmentId, source, target, owner, n++));
      at[c] = target;
    });
  };

  const httpSubmit = async (b: ReturnType<typeof body>) => {
    const res = await fetch(`${base}/v2/commands/submit-and-wait-for-reassignment`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(b),
    });
    const json = (await res.json()) as { reassignment?: { events: Array<{ JsUnassignedEvent?: { value: { reassignmentId: string } }; JsAssignmentEvent?: { reassignmentId: string } }> } };
    if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${JSON.stringify(json)}`);
    const e = json.reassignment!.events[0];
    return { reassignmentId: e.JsUnassignedEvent?.value.reassignmentId ?? e.JsAssignmentEvent!.reassignmentId };
  };
  const bus = app.get(CommandBus);
  const busSubmit = async (b: ReturnType<typeof body>) => {
    const r: ReassignmentResult = await bus.execute(new SubmitReassignmentCommand(claims, b));
    const e = r.data.events[0];
    return { reassignmentId: 'Unassigned' in e ? e.Unassigned.reassignmentId : e.Assigned.reassignmentId };
  };

  // Context: the event store itself, one trivial ledger update per work (what every write of the service pays).
  results.push([
    'event-store appends (one update per work, in-process)',
    await measure(CLIENTS, SECONDS, (c) =>
      runtime.eventStore.append([{ type: 'BenchAppend', stream: `bench:${c}`, data: { c }, update: { kind: 'Transaction', synchronizerId: A, parties: [owner] } }]).then(() => undefined),
    ),
  ]);
  results.push(['reassignment round trips, HTTP API', await roundTrips('http', httpSubmit)]);
  results.push(['reassignment round trips, in-process CommandBus', await roundTrips('bus', busSubmit)]);

  await app.close();
  await runtime.close();
  await admin.query(`DROP DATABASE ${dbName} WITH (FORCE)`);
  await admin.end();
  await stop();

  console.log(`\n${CLIENTS} concurrent clients, ${SECONDS} s per phase, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'})\n`);
  console.log('| measurement | per second | operations | p50 ms | p99 ms |');
  console.log('|---|---:|---:|---:|---:|');
  for (const [name, r] of results) console.log(`| ${name} | ${r.perSecond.toFixed(0)} | ${r.count} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} |`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
