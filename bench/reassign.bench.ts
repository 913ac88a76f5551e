/**
 * npm run bench:reassign — unassign+assign round trips per second at 16 concurrent clients, next to the append baseline
 * (one single-row INSERT + COMMIT per append through pg, bench/lib) measured in the same run on the same database.
 *
 * Also measured, for context: the event store alone (one trivial ledger update per work). Two reassignment figures:
 * in-process through the CommandBus (handler + event store) and through the HTTP API (JWT, claims, JSON, the whole
 * service). Each client owns one contract and moves it A → B → A …; a round trip is an unassign followed by the assign
 * of its reassignment id.
 *
 * Knobs: BENCH_DATABASE_URL (server; default postgres://postgres@127.0.0.1:5432/postgres), BENCH_CLIENTS (16),
 * BENCH_DURATION_MS (per measurement, 8000), BENCH_WARMUP_MS (1000). Target: ≥ 1,000 round trips/s.
 */
import 'reflect-metadata';
import os from 'node:os';
import { createHash, randomBytes } from 'node:crypto';
import { CommandBus } from '@nestjs/cqrs';
import { contractIdFromSeed } from '@ledgerline/canton';
import {
  decideCreateUser,
  PARTY_ALLOCATED,
  partyStream,
  TRANSACTION_COMMITTED,
  type Claims,
  type StoredTransaction,
} from '@ledgerline/domain';
import { UsersRepository } from '@ledgerline/store';
import { mintHs256Token } from '@ledgerline/auth';
import { createApp } from '@ledgerline/server/app';
import { loadConfig } from '@ledgerline/server/config';
import { makeLogger, startRuntime, type LedgerRuntime } from '@ledgerline/server/infrastructure/runtime';
import { SubmitReassignmentCommand } from '@ledgerline/server/modules/reassignment/commands/submit-reassignment.command';
import type { ReassignmentResult } from '@ledgerline/server/modules/reassignment/commands/submit-reassignment.handler';
import { appendBaseline, envInt, fmt, printTable, runConcurrent, withBenchDatabase, type RunResult } from './lib';
import { fastFetch } from './lib/http-client';
import { foreignEvent } from '../testkit/foreign-event';

const CLIENTS = envInt('BENCH_CLIENTS', 16);
const durationMs = envInt('BENCH_DURATION_MS', 8000);
const warmupMs = Number(process.env.BENCH_WARMUP_MS ?? 1000);
const SECRET = 'bench-secret-bench-secret-bench';
const TARGET = 1000;

const partyId = (hint: string) => `${hint}::1220${createHash('sha256').update(hint).digest('hex')}`;

/** One contract per client, created in one transaction on `synchronizerId`. */
async function createContracts(
  runtime: LedgerRuntime,
  owner: string,
  synchronizerId: string,
  tag: string,
): Promise<string[]> {
  const ids = Array.from({ length: CLIENTS }, (_, i) =>
    contractIdFromSeed(`${tag}-${i}-${randomBytes(4).toString('hex')}`),
  );
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
  await runtime.eventStore.append([
    {
      type: TRANSACTION_COMMITTED,
      stream: `bench:${tag}`,
      data,
      update: { kind: 'Transaction', synchronizerId, parties: [owner] },
    },
  ]);
  return ids;
}

type Body = ReturnType<typeof body>;
const body = (
  kind: 'unassign' | 'assign',
  id: string,
  source: string,
  target: string,
  submitter: string,
  i: number,
) => ({
  reassignmentCommands: {
    commandId: `bench-${kind}-${i}-${randomBytes(6).toString('hex')}`,
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
  console.log(
    `reassignment benchmark: ${CLIENTS} clients, ${durationMs} ms per measurement after ${warmupMs} ms warm-up`,
  );
  const rows: Array<Array<string | number>> = [['measurement', 'per second', 'p50 ms', 'p99 ms', 'errors']];
  const push = (name: string, r: RunResult) =>
    rows.push([name, r.opsPerSec, r.latency.p50, r.latency.p99, String(r.errors)]);
  let roundTrips = 0;

  await withBenchDatabase({ label: 'reassign', migrate: false }, async ({ url }) => {
    push(
      'append baseline (INSERT + COMMIT through pg)',
      await appendBaseline(url, { concurrency: CLIENTS, durationMs, warmupMs }),
    );

    const config = loadConfig({
      DATABASE_URL: url,
      LEDGER_SYNCHRONIZERS: 'global,secondary',
      LEDGER_JWT_SECRET: SECRET,
      LEDGER_LOG_LEVEL: 'silent',
      LEDGER_DB_POOL_SIZE: '20',
    });
    const runtime = await startRuntime(config, makeLogger(config));
    const app = await createApp(runtime);
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const base = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
      const [A, B] = runtime.identity.synchronizers.map((s) => s.id);
      const owner = partyId('bench-owner');
      await runtime.eventStore.append([
        {
          type: PARTY_ALLOCATED,
          stream: partyStream(owner),
          data: {
            party: owner,
            isLocal: true,
            identityProviderId: '',
            annotations: {},
            synchronizerId: A,
            participantId: runtime.identity.participantId,
          },
        },
      ]);
      const users = new UsersRepository();
      await runtime.eventStore.execute(async (tx) =>
        tx.append(
          decideCreateUser(
            await users.state(tx.db, 'bench'),
            { id: 'bench', primaryParty: '', isDeactivated: false, annotations: {}, identityProviderId: '' },
            [{ kind: 'CanActAs', party: owner }],
          ),
        ),
      );
      const token = await mintHs256Token({
        secret: SECRET,
        userId: 'bench',
        participantId: runtime.identity.participantId,
        expiresInSeconds: 3600,
      });
      const claims: Claims = { userId: 'bench', identityProviderId: '', rights: [{ kind: 'CanActAs', party: owner }] };

      push(
        'event store alone (one trivial update per work)',
        await runConcurrent({
          concurrency: CLIENTS,
          durationMs,
          warmupMs,
          op: (w) =>
            runtime.eventStore.append([
              foreignEvent({
                type: 'BenchAppend',
                stream: `bench:${w}`,
                data: { w },
                update: { kind: 'Transaction', synchronizerId: A, parties: [owner] },
              }),
            ]),
        }),
      );

      const measureRoundTrips = async (tag: string, submit: (b: Body) => Promise<string>) => {
        const ids = await createContracts(runtime, owner, A, tag);
        const at = ids.map(() => A);
        return runConcurrent({
          concurrency: CLIENTS,
          durationMs,
          warmupMs,
          op: async (w, i) => {
            const [source, target] = at[w] === A ? [A, B] : [B, A];
            const reassignmentId = await submit(body('unassign', ids[w], source, target, owner, i));
            await submit(body('assign', reassignmentId, source, target, owner, i));
            at[w] = target;
          },
        });
      };

      const bus = app.get(CommandBus);
      const inProcess = await measureRoundTrips('bus', async (b) => {
        const r: ReassignmentResult = await bus.execute(new SubmitReassignmentCommand(claims, b));
        const e = r.data.events[0];
        return 'Unassigned' in e ? e.Unassigned.reassignmentId : e.Assigned.reassignmentId;
      });
      push('reassignment round trips, in-process (CommandBus)', inProcess);
      roundTrips = inProcess.opsPerSec;

      push(
        'reassignment round trips, HTTP API',
        await measureRoundTrips('http', async (b) => {
          const res = await fastFetch(`${base}/v2/commands/submit-and-wait-for-reassignment`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify(b),
          });
          const json = (await res.json()) as {
            reassignment?: {
              events: Array<{
                JsUnassignedEvent?: { value: { reassignmentId: string } };
                JsAssignmentEvent?: { reassignmentId: string };
              }>;
            };
          };
          if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${JSON.stringify(json)}`);
          const e = json.reassignment!.events[0];
          return e.JsUnassignedEvent?.value.reassignmentId ?? e.JsAssignmentEvent!.reassignmentId;
        }),
      );
    } finally {
      await app.close();
      await runtime.close();
    }
  });

  console.log(
    `\n${os.cpus().length} CPUs, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}\n`,
  );
  printTable(rows);
  console.log(
    `\ntarget (≥ ${TARGET} round trips/s in-process at ${CLIENTS} clients): ${roundTrips >= TARGET ? 'met' : 'MISSED'} (${fmt(roundTrips)}/s)`,
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
