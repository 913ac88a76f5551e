import { createHash } from 'node:crypto';
import { contractIdFromSeed } from '@ledgerline/canton';
import {
  notFound,
  PARTY_ALLOCATED,
  partyStream,
  type PartyAllocatedData,
  TRANSACTION_COMMITTED,
  type CommittedEvent,
  type StoredCreatedEvent,
  type StoredTransaction,
} from '@ledgerline/domain';
import type { EventStore } from '@ledgerline/store';

/**
 * Contracts for tests of capabilities that consume them (reassignment, reads): appended as 'TransactionCommitted'
 * updates straight through the EventStore, in the stored shapes of libs/domain/src/ledger/updates.ts.
 */

/** A syntactically valid party id `hint::1220<64 hex>`, deterministic per hint. */
export const partyId = (hint: string): string =>
  `${hint}::1220${createHash('sha256').update(`party:${hint}`).digest('hex')}`;

export const TEST_PACKAGE_ID = createHash('sha256').update('test-package').digest('hex');

export interface ContractSpec {
  seed: string;
  signatories: string[];
  observers?: string[];
  synchronizerId: string;
}

export function createdEventFor(spec: ContractSpec, nodeId = 0): StoredCreatedEvent {
  return {
    nodeId,
    contractId: contractIdFromSeed(spec.seed),
    templateId: `${TEST_PACKAGE_ID}:Iou:Iou`,
    packageName: 'model-tests',
    representativePackageId: TEST_PACKAGE_ID,
    createArgument: {
      issuer: spec.signatories[0],
      owner: spec.observers?.[0] ?? spec.signatories[0],
      amount: '100.0000000000',
    },
    createdEventBlob: Buffer.from(`blob:${spec.seed}`).toString('base64'),
    signatories: spec.signatories,
    observers: spec.observers ?? [],
    createdAt: '2025-05-01T10:00:00.123456Z',
    contractKey: null,
    contractKeyHash: '',
    acsDelta: true,
  };
}

/** Creates contracts (one transaction per synchronizer group) and returns their created events. */
export async function createContracts(store: EventStore, specs: ContractSpec[]): Promise<StoredCreatedEvent[]> {
  const bySync = new Map<string, ContractSpec[]>();
  for (const s of specs) bySync.set(s.synchronizerId, [...(bySync.get(s.synchronizerId) ?? []), s]);
  const out: StoredCreatedEvent[] = [];
  for (const [synchronizerId, group] of bySync) {
    const created = group.map((s, i) => createdEventFor(s, i));
    const data: StoredTransaction = {
      commandId: `create-${group[0].seed}`,
      workflowId: '',
      effectiveAt: '2025-05-01T10:00:00.123456Z',
      externalTransactionHash: null,
      events: created.map((c) => ({ CreatedEvent: c })),
    };
    await store.append([
      {
        type: TRANSACTION_COMMITTED,
        stream: `transaction:${group[0].seed}`,
        data,
        update: {
          kind: 'Transaction',
          synchronizerId,
          parties: [...new Set(group.flatMap((s) => [...s.signatories, ...(s.observers ?? [])]))],
        },
      },
    ]);
    out.push(...created);
  }
  return out;
}

export const createContract = async (store: EventStore, spec: ContractSpec) =>
  (await createContracts(store, [spec]))[0];

/**
 * Archives a contract the way executeAndWait will: inside one work that first checks the contract is active on the
 * transaction's synchronizer (404 CONTRACT_NOT_FOUND otherwise), then appends the archiving transaction.
 */
export function archiveIfActive(
  store: EventStore,
  created: StoredCreatedEvent,
  synchronizerId: string,
): Promise<CommittedEvent> {
  return store.execute(async (tx) => {
    const row = await tx.db
      .selectFrom('contracts')
      .select(['status', 'synchronizer_id'])
      .where('contract_id', '=', created.contractId)
      .executeTakeFirst();
    if (!row || row.status !== 'active' || row.synchronizer_id !== synchronizerId) {
      throw notFound('CONTRACT_NOT_FOUND', `Contract could not be found with id ${created.contractId}`, [
        ['CONTRACT_ID', created.contractId],
      ]);
    }
    const stakeholders = [...new Set([...created.signatories, ...created.observers])];
    const data: StoredTransaction = {
      commandId: `archive-${created.contractId.slice(0, 12)}`,
      workflowId: '',
      effectiveAt: '2025-05-01T10:00:01.000000Z',
      externalTransactionHash: null,
      events: [
        {
          ArchivedEvent: {
            nodeId: 0,
            contractId: created.contractId,
            templateId: created.templateId,
            packageName: created.packageName,
            stakeholders,
            implementedInterfaces: [],
          },
        },
      ],
    };
    const [ce] = await tx.append([
      {
        type: TRANSACTION_COMMITTED,
        stream: `transaction:archive:${created.contractId}`,
        data,
        update: { kind: 'Transaction', synchronizerId, parties: stakeholders },
      },
    ]);
    return ce;
  });
}

/** Allocates local parties on this participant (PartyAllocated events, as the parties capability appends them). */
export async function allocateLocalParties(
  store: EventStore,
  parties: string[],
  participantId: string,
  synchronizerId: string,
): Promise<void> {
  await store.append(
    parties.map((party) => ({
      type: PARTY_ALLOCATED,
      stream: partyStream(party),
      data: {
        party,
        isLocal: true,
        identityProviderId: '',
        annotations: {},
        synchronizerId,
        participantId,
      } satisfies PartyAllocatedData,
    })),
  );
}
