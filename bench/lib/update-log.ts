import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { TRANSACTION_COMMITTED, type NewLedgerEvent, type StoredTransaction } from '@ledgerline/domain';
import { EventStore, openDatabase } from '@ledgerline/store';
import { loadParticipantIdentity } from '@ledgerline/server/infrastructure/participant-identity';
import { serverNodeArgs } from './server-args';

/** The read side's benchmark ledger: transactions of one create each, ten parties, each update seen by two of them. */
export const BENCH_PARTIES = Array.from({ length: 10 }, (_, i) => `party${i}::1220${'ab'.repeat(32)}`);
const SYNC = `global::1220${'cd'.repeat(32)}`;
const PKG = 'e1'.repeat(32);

/** The i-th update (from 0): a create of party i mod 10, observed by party i+3 mod 10. */
export function benchUpdate(i: number): NewLedgerEvent<typeof TRANSACTION_COMMITTED> {
  const owner = BENCH_PARTIES[i % BENCH_PARTIES.length];
  const observer = BENCH_PARTIES[(i + 3) % BENCH_PARTIES.length];
  const contractId = `00${i.toString(16).padStart(64, '0')}`;
  const data: StoredTransaction = {
    commandId: `cmd-${i}`,
    workflowId: '',
    effectiveAt: '2025-05-01T10:00:00.000000Z',
    externalTransactionHash: null,
    submission: { userId: 'bench', actAs: [owner], submissionId: `s-${i}` },
    events: [
      {
        CreatedEvent: {
          nodeId: 0,
          contractId,
          templateId: `${PKG}:Bench.Iou:Iou`,
          packageName: 'bench-model',
          representativePackageId: PKG,
          createArgument: { issuer: owner, owner: observer, amount: `${i}.0000000000`, currency: 'USD' },
          createdEventBlob: '',
          signatories: [owner],
          observers: [observer],
          createdAt: '2025-05-01T10:00:00.000000Z',
          contractKey: null,
          contractKeyHash: '',
          acsDelta: true,
        },
      },
    ],
  };
  return {
    type: TRANSACTION_COMMITTED,
    stream: `contract:${contractId}`,
    data,
    update: { kind: 'Transaction', synchronizerId: SYNC, parties: [owner, observer], commandId: data.commandId },
  };
}

/**
 * Appends updates `from` … `from + count - 1` to the log of the database at `url` (chunks of 500, four in flight), then
 * ANALYZEs. Returns the participant id (for tokens) and the seconds it took.
 */
export async function fillUpdateLog(
  url: string,
  count: number,
  from = 0,
): Promise<{ participantId: string; seconds: number }> {
  const database = openDatabase(url, { max: 4 });
  const identity = await loadParticipantIdentity(database.db, 'participant1', ['global']);
  const store = new EventStore(database.db, { participantId: identity.participantId, maxBatch: 64 });
  const t0 = performance.now();
  const chunk = 500;
  const writes: Promise<unknown>[] = [];
  for (let i = from; i < from + count; i += chunk) {
    writes.push(store.append(Array.from({ length: Math.min(chunk, from + count - i) }, (_, k) => benchUpdate(i + k))));
    if (writes.length >= 4) await writes.shift();
  }
  await Promise.all(writes);
  await store.close();
  await database.pool.query('ANALYZE');
  await database.close();
  return { participantId: identity.participantId, seconds: (performance.now() - t0) / 1000 };
}

/**
 * The compiled server (dist/) as a child process on `url`, with the HS256 `secret`, the node flags of
 * BENCH_SERVER_NODE_ARGS and `env` on top of this process's environment; resolves once GET /readyz answers.
 */
export async function startReadServer(
  url: string,
  port: number,
  secret: string,
  env: Record<string, string> = {},
): Promise<ChildProcess> {
  const main = path.resolve(__dirname, '../../apps/server/src/main.js');
  const child = spawn(process.execPath, [...serverNodeArgs(), main], {
    env: {
      ...process.env,
      DATABASE_URL: url,
      PORT: String(port),
      LEDGER_GRPC_PORT: 'off',
      HOST: '127.0.0.1',
      LEDGER_JWT_SECRET: secret,
      LEDGER_LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (let i = 0; i < 200; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return child;
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('server did not become ready');
}
