import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sql, type Kysely } from 'kysely';
import { makeContractId } from '@ledgerline/canton';
import {
  changeIdOf,
  checkWellFormed,
  decideAllocateParty,
  isLedgerError,
  localPartyId,
  prerenderTransaction,
  validateUpdatePartyDetails,
  type Claims,
  type NewLedgerEvent,
  type ReassignmentSubmission,
  type Right,
} from '@ledgerline/domain';
import {
  dumpProjections,
  EventStore,
  transactionSubmissionDecider,
  externalPartyAllocationDecider,
  identityProviderConfigDecider,
  partyAllocationDecider,
  partyUpdateDecider,
  projectionTables,
  pruneLedger,
  reassignmentDecider,
  userCreationDecider,
  userDeletionDecider,
  userRightsDecider,
  type DB,
  type Database,
  type CheckedTransactionSubmission,
  type WriterKind,
} from '@ledgerline/store';
import { createNode, exerciseNode, preparedTransaction } from '../../../testkit/external-signing';
import { foreignEvent } from '../../../testkit/foreign-event';
import { openTestDatabase } from '../../support/database';

/*
 * The batched writer against the reference writer: the same random workloads, each on its own database, must give the
 * same answers, the same event log (offsets, record times, update ids) and the same projections. The clocks are fixed
 * (the writers' record-time clock and the decisions' "now"), so both runs are deterministic functions of the queue order.
 *
 * A workload is a list of waves; the commands of a wave are submitted at once (the batched writer groups them into
 * batches and segments, with conflicts and rejections among them), and a wave starts once the previous one is answered.
 */

const PARTICIPANT = `participant1::1220${'ab'.repeat(32)}`;
const NAMESPACE = `1220${'cd'.repeat(32)}`;
const SYNC_A = `alpha::1220${'a1'.repeat(32)}`;
const SYNC_B = `beta::1220${'b2'.repeat(32)}`;
const NOW = 1_767_225_600_000_000n; // 2026-01-01T00:00:00Z: every decision's clock
const CLOCK = () => NOW; // the writers' record-time clock (record times then go up by 1 µs per append)

const hex = (s: string) => createHash('sha256').update(s).digest('hex');
const party = (hint: string) => localPartyId(hint, NAMESPACE);
const alice = party('alice');
const bob = party('bob');
const contractId = (k: number) => makeContractId(Buffer.from(hex(`contract-${k}`), 'hex'));
const CONTRACTS = 8; // contract ids c0..c7; c0..c3 exist after set-up
const ADMIN: Claims = { userId: 'admin', identityProviderId: '', rights: [{ kind: 'ParticipantAdmin' }] };

type Command =
  | { kind: 'createUser'; user: number; rights: Right[] }
  | { kind: 'grant' | 'revoke'; user: number; right: Right }
  | { kind: 'deleteUser'; user: number }
  | { kind: 'createIdp' | 'updateIdp'; idp: number; issuer: number }
  | { kind: 'deleteIdp'; idp: number }
  | { kind: 'allocate'; hint: number; idp: string; user: string }
  | { kind: 'allocateExternal'; hint: number; user: string }
  | { kind: 'patchParty'; party: string; version: number; key: string }
  | {
      kind: 'execute';
      command: number;
      action: 'create' | 'archive' | 'transfer' | 'peek';
      contract: number;
      created: number;
      sync: string;
    }
  /** An action on a contract of one of the last unassignments, on its target synchronizer. */
  | { kind: 'executeMoved'; command: number; action: 'archive' | 'peek'; unassignment: number }
  | { kind: 'unassign'; command: number; submitter: string; contracts: number[]; toB: boolean }
  /** `unassignment`: which of the last unassignments (0 = the latest); `submitter` 'same': the unassignment's. */
  | { kind: 'assign'; command: number; submitter: string; unassignment: number }
  | { kind: 'prune'; upTo: number }
  | { kind: 'append'; n: number }
  | { kind: 'failAfterAppend'; n: number };

const right = fc.oneof(
  fc.constantFrom(alice, bob, party('h0')).map((p): Right => ({ kind: 'CanActAs', party: p })),
  fc.constantFrom(alice, party('h1')).map((p): Right => ({ kind: 'CanReadAs', party: p })),
  fc.constant<Right>({ kind: 'CanReadAsAnyParty' }),
);
const submitter = fc.constantFrom(alice, bob);
const some = <T>(weight: number, arbitrary: fc.Arbitrary<T>) => ({ weight, arbitrary });
const command: fc.Arbitrary<Command> = fc.oneof(
  some(
    2,
    fc.record({ kind: fc.constant('createUser' as const), user: fc.nat(3), rights: fc.array(right, { maxLength: 2 }) }),
  ),
  some(2, fc.record({ kind: fc.constantFrom('grant' as const, 'revoke' as const), user: fc.nat(2), right })),
  some(1, fc.record({ kind: fc.constant('deleteUser' as const), user: fc.nat(3) })),
  some(
    1,
    fc.record({ kind: fc.constantFrom('createIdp' as const, 'updateIdp' as const), idp: fc.nat(1), issuer: fc.nat(2) }),
  ),
  some(1, fc.record({ kind: fc.constant('deleteIdp' as const), idp: fc.nat(1) })),
  some(
    2,
    fc.record({
      kind: fc.constant('allocate' as const),
      hint: fc.nat(3),
      idp: fc.constantFrom('', '', 'idp0'),
      user: fc.constantFrom('', 'u0', 'u1'),
    }),
  ),
  some(
    1,
    fc.record({ kind: fc.constant('allocateExternal' as const), hint: fc.nat(2), user: fc.constantFrom('', 'u0') }),
  ),
  some(
    3,
    fc.record({
      kind: fc.constant('patchParty' as const),
      party: fc.constantFrom(alice, alice, party('h0')),
      version: fc.nat(2),
      key: fc.constantFrom('a', 'b'),
    }),
  ),
  some(
    6,
    fc.record({
      kind: fc.constant('execute' as const),
      command: fc.nat(7),
      action: fc.constantFrom('create' as const, 'archive' as const, 'transfer' as const, 'peek' as const),
      contract: fc.nat(CONTRACTS - 1),
      created: fc.nat(CONTRACTS - 1),
      sync: fc.constantFrom(SYNC_A, SYNC_A, SYNC_B),
    }),
  ),
  some(
    4,
    fc.record({
      kind: fc.constant('unassign' as const),
      command: fc.nat(5),
      submitter,
      contracts: fc.uniqueArray(fc.oneof(fc.nat(3), fc.nat(3), fc.nat(CONTRACTS - 1)), { minLength: 1, maxLength: 2 }),
      toB: fc.constantFrom(true, true, true, false),
    }),
  ),
  some(
    3,
    fc.record({
      kind: fc.constant('assign' as const),
      command: fc.nat(5),
      submitter: fc.constantFrom('same', alice, bob),
      unassignment: fc.nat(2),
    }),
  ),
  some(1, fc.record({ kind: fc.constant('prune' as const), upTo: fc.integer({ min: 1, max: 16 }) })),
  some(1, fc.record({ kind: fc.constant('append' as const), n: fc.nat(100) })),
  some(1, fc.record({ kind: fc.constant('failAfterAppend' as const), n: fc.nat(100) })),
);
/** Commands that race on the same state when they share a wave: an assign and a use of the contracts it moves. */
const assignAndUse: fc.Arbitrary<Command[]> = fc
  .record({
    command: fc.nat(5),
    use: fc.nat(7),
    unassignment: fc.nat(1),
    action: fc.constantFrom('archive' as const, 'peek' as const),
  })
  .map(({ command, use, unassignment, action }) => [
    { kind: 'assign', command, submitter: 'same', unassignment },
    { kind: 'executeMoved', command: use, action, unassignment },
  ]);
const wave = fc
  .array(fc.oneof({ weight: 10, arbitrary: command.map((c) => [c]) }, { weight: 1, arbitrary: assignAndUse }), {
    minLength: 1,
    maxLength: 12,
  })
  .map((groups) => groups.flat());
const workload = fc.record({
  maxBatch: fc.integer({ min: 1, max: 8 }),
  waves: fc.array(wave, { minLength: 1, maxLength: 5 }),
});

/** An execution of one action by alice on contract `contract` (or creating `created`). */
function execution(
  c: Extract<Command, { kind: 'execute' }>,
  index: number,
  moved?: string,
): CheckedTransactionSubmission {
  const ref = (k: number) => ({
    contractId: k < 0 && moved ? moved : contractId(k),
    signatories: [alice],
    stakeholders: [alice, bob],
  });
  const nodes =
    c.action === 'create'
      ? [createNode('0', ref(c.created))]
      : c.action === 'archive'
        ? [exerciseNode('0', { ...ref(c.contract), actingParties: [alice] })]
        : c.action === 'transfer'
          ? [
              exerciseNode('0', { ...ref(c.contract), actingParties: [alice], children: ['1'] }),
              createNode('1', ref(c.created)),
            ]
          : [exerciseNode('0', { ...ref(c.contract), actingParties: [alice], choiceId: 'Peek', consuming: false })];
  const commandId = `exec-${c.command}`;
  const pt = preparedTransaction({ nodes, actAs: [alice], synchronizerId: c.sync, commandId, preparationTime: NOW });
  const wf = checkWellFormed(pt.transaction);
  const submission = { userId: 'executor', actAs: [alice], submissionId: `submission-${index}` };
  const externalTransactionHash = `1220${hex(`transaction-${index}`)}`;
  const times = { preparationTime: NOW };
  return {
    changeId: changeIdOf('executor', [alice], commandId),
    transaction: {
      wf,
      synchronizerId: c.sync,
      commandId,
      submission,
      times,
      externalTransactionHash,
      timeConfig: { preparationTimeToleranceMicros: 60_000_000n, ledgerTimeToleranceMicros: 60_000_000n },
      rendered: prerenderTransaction({ wf, commandId, submission, times, externalTransactionHash }, NOW),
    },
    deduplicationPeriod: { kind: 'duration', micros: 3_600_000_000n },
    now: () => NOW,
  };
}

const testUpdate = (n: number): NewLedgerEvent =>
  foreignEvent({
    type: 'TestUpdate',
    stream: `test:${n}`,
    data: { n },
    update: { kind: 'Transaction', synchronizerId: SYNC_A, parties: [alice] },
  });

/** Unassignments committed so far (what assigns refer to), in commit order. */
type Unassignments = Array<{ id: string; source: string; target: string; submitter: string; contract: string }>;

/** Submits one command as the service's handlers do (their writer-side part). */
function submit(store: EventStore, c: Command, index: number, unassignments: Unassignments): Promise<unknown> {
  switch (c.kind) {
    case 'createUser':
      return store.decide(userCreationDecider, {
        claims: ADMIN,
        user: {
          id: `u${c.user}`,
          primaryParty: '',
          isDeactivated: false,
          annotations: { n: String(index) },
          identityProviderId: '',
        },
        rights: c.rights,
      });
    case 'grant':
    case 'revoke':
      return store
        .decide(userRightsDecider, {
          kind: c.kind,
          claims: ADMIN,
          userId: `u${c.user}`,
          rights: [c.right],
          identityProviderId: '',
        })
        .then((changed) => changed.length);
    case 'deleteUser':
      return store.decide(userDeletionDecider, { claims: ADMIN, userId: `u${c.user}` });
    case 'createIdp':
    case 'updateIdp': {
      const config = {
        identityProviderId: `idp${c.idp}`,
        issuer: `https://issuer-${c.issuer}.example`,
        jwksUrl: 'https://keys.example/jwks',
        audience: '',
        isDeactivated: false,
      };
      return store.decide(
        identityProviderConfigDecider,
        c.kind === 'createIdp' ? { kind: 'create', config } : { kind: 'update', config, maskPaths: ['issuer'] },
      );
    }
    case 'deleteIdp':
      return store.decide(identityProviderConfigDecider, { kind: 'delete', identityProviderId: `idp${c.idp}` });
    case 'allocate':
      return store.decide(partyAllocationDecider, {
        request: {
          partyIdHint: `h${c.hint}`,
          annotations: {},
          resourceVersion: '',
          identityProviderId: c.idp,
          synchronizerId: SYNC_A,
          userId: c.user,
        },
        participant: {
          connectedSynchronizers: [SYNC_A, SYNC_B],
          participantId: PARTICIPANT,
          namespace: NAMESPACE,
          selfAllocationQuota: null,
        },
      });
    case 'allocateExternal': {
      const fingerprint = `1220${hex(`key-${c.hint}`)}`;
      const partyId = `e${c.hint}::${fingerprint}`;
      const verified = {
        partyId,
        permission: 'PARTICIPANT_PERMISSION_CONFIRMATION' as const,
        keys: [
          {
            fingerprint,
            keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519' as const,
            keyFormat: 'CRYPTO_KEY_FORMAT_RAW' as const,
            publicKey: Buffer.from(hex(`pk-${c.hint}`), 'hex').toString('base64'),
          },
        ],
        threshold: 1,
        synchronizerId: SYNC_A,
        topologyTransactionHash: `1220${hex(`topology-${c.hint}`)}`,
      };
      return store.decide(externalPartyAllocationDecider, {
        verified,
        hosting: { participantId: PARTICIPANT, connectedSynchronizers: [SYNC_A, SYNC_B] },
        options: { identityProviderId: '', userId: c.user },
      });
    }
    case 'patchParty': {
      const request = validateUpdatePartyDetails(
        {
          partyDetails: {
            party: c.party,
            isLocal: true,
            identityProviderId: '',
            localMetadata: { resourceVersion: String(c.version), annotations: { [c.key]: String(index) } },
          },
          updateMask: { paths: ['local_metadata.annotations'] },
        },
        '',
      );
      return store.decide(partyUpdateDecider, request);
    }
    case 'execute':
      return store.decide(transactionSubmissionDecider, execution(c, index));
    case 'executeMoved': {
      const ref = unassignments[unassignments.length - 1 - c.unassignment];
      const sync = ref?.target ?? SYNC_B;
      return store.decide(
        transactionSubmissionDecider,
        execution(
          { kind: 'execute', command: c.command, action: c.action, contract: -1, created: 0, sync },
          index,
          ref?.contract ?? contractId(0),
        ),
      );
    }
    case 'unassign':
    case 'assign': {
      const ref = c.kind === 'assign' ? unassignments[unassignments.length - 1 - c.unassignment] : undefined;
      const by = c.submitter === 'same' ? (ref?.submitter ?? alice) : c.submitter;
      const batch: ReassignmentSubmission['batch'] =
        c.kind === 'unassign'
          ? {
              kind: 'unassign',
              source: c.toB ? SYNC_A : SYNC_B,
              target: c.toB ? SYNC_B : SYNC_A,
              contractIds: c.contracts.map(contractId),
            }
          : {
              kind: 'assign',
              source: ref?.source ?? SYNC_A,
              target: ref?.target ?? SYNC_B,
              reassignmentId: ref?.id ?? `unknown-${index}`,
            };
      const submission: ReassignmentSubmission = {
        userId: 'mover',
        submitter: by,
        commandId: `move-${c.command}`,
        workflowId: '',
        submissionId: `move-${index}`,
        batch,
      };
      // A duplicate is a rejected completion (appended); its error is the answer to compare.
      return store
        .decide(reassignmentDecider, {
          submission,
          participantId: PARTICIPANT,
          deduplicationMicros: 600_000_000n,
          exclusivityTimeoutMicros: 60_000_000n,
          now: () => NOW,
        })
        .then((decided) => (decided.rejection ? Promise.reject(decided.rejection) : decided.committed));
    }
    case 'prune':
      return pruneLedger(store, c.upTo);
    case 'append':
      return store.append([testUpdate(c.n)]);
    case 'failAfterAppend':
      return store.execute(async (tx) => {
        await tx.append([testUpdate(c.n)]);
        throw new Error('the work failed after appending');
      });
  }
}

/** A command's answer, comparable across runs. */
const answer = (r: PromiseSettledResult<unknown>) =>
  r.status === 'fulfilled'
    ? { ok: JSON.parse(JSON.stringify(r.value ?? null, (_, v) => (typeof v === 'bigint' ? `${v}n` : v))) }
    : isLedgerError(r.reason)
      ? { error: r.reason.code, cause: r.reason.causeText }
      : { thrown: String(r.reason) };

/** Runs a workload on one writer; returns the answers and the database's log, head and projections. */
async function run(
  database: Database,
  writer: WriterKind,
  load: { maxBatch: number; waves: Command[][] },
  batchSizes: number[] = [],
) {
  const store = new EventStore(database.db, {
    participantId: PARTICIPANT,
    writer,
    clock: CLOCK,
    maxBatch: load.maxBatch,
    onBatch: ({ size }) => batchSizes.push(size),
  });
  const answers: unknown[] = [];
  const unassignments: Unassignments = [];
  try {
    let index = 0;
    const setUp: Command[] = [
      ...[0, 1, 2, 3].map((k): Command => ({
        kind: 'execute',
        command: 100 + k,
        action: 'create',
        contract: k,
        created: k,
        sync: SYNC_A,
      })),
      { kind: 'createUser', user: 0, rights: [] },
      { kind: 'createUser', user: 1, rights: [{ kind: 'CanActAs', party: alice }] },
      { kind: 'createIdp', idp: 0, issuer: 0 },
    ];
    await store.append(
      ['alice', 'bob']
        .map(
          (h) =>
            decideAllocateParty(
              {
                existing: null,
                identityProviderExists: true,
                user: null,
                connectedSynchronizers: [SYNC_A],
                participantId: PARTICIPANT,
                namespace: NAMESPACE,
                selfAllocationQuota: null,
              },
              {
                partyIdHint: h,
                annotations: {},
                resourceVersion: '',
                identityProviderId: '',
                synchronizerId: '',
                userId: '',
              },
            ).events,
        )
        .flat(),
    );
    for (const wave of [setUp, ...load.waves]) {
      const results = await Promise.allSettled(wave.map((c) => submit(store, c, index++, unassignments)));
      results.forEach((r, i) => {
        const c = wave[i];
        if (c.kind === 'unassign' && r.status === 'fulfilled') {
          const e = (
            r.value as {
              data: {
                events: Array<{
                  Unassigned: {
                    reassignmentId: string;
                    source: string;
                    target: string;
                    submitter: string;
                    contractId: string;
                  };
                }>;
              };
            }
          ).data.events[0].Unassigned;
          unassignments.push({
            id: e.reassignmentId,
            source: e.source,
            target: e.target,
            submitter: e.submitter,
            contract: e.contractId,
          });
        }
      });
      answers.push(results.map(answer));
    }
  } finally {
    await store.close();
  }
  const log =
    await sql`SELECT seq, ledger_offset, type, stream, data, header, recorded_at FROM event_log ORDER BY seq`.execute(
      database.db,
    );
  const head = await sql`SELECT seq, ledger_offset, record_time_micros FROM ledger_head`.execute(database.db);
  return { answers, log: log.rows, head: head.rows, projections: await dumpProjections(database.db) };
}

async function reset(db: Kysely<DB>): Promise<void> {
  await sql.raw(`TRUNCATE event_log, ${projectionTables().join(', ')}`).execute(db);
  await sql`UPDATE ledger_head SET seq = 0, ledger_offset = 0, record_time_micros = 0`.execute(db);
}

let batchedDb: Database;
let referenceDb: Database;
beforeAll(async () => {
  [batchedDb, referenceDb] = await Promise.all([openTestDatabase(), openTestDatabase()]);
});
afterAll(async () => {
  await Promise.all([batchedDb.close(), referenceDb.close()]);
});

describe('batched writer = reference writer', () => {
  it('random workloads of every command kind give the same answers, event log, offsets and projections', async () => {
    let committed = 0;
    let rejected = 0;
    const batchSizes: number[] = [];
    await fc.assert(
      fc.asyncProperty(workload, async (load) => {
        await Promise.all([reset(batchedDb.db), reset(referenceDb.db)]);
        const [batched, reference] = await Promise.all([
          run(batchedDb, 'batched', load, batchSizes),
          run(referenceDb, 'reference', load),
        ]);
        expect(batched.answers).toEqual(reference.answers);
        expect(batched.log).toEqual(reference.log);
        expect(batched.head).toEqual(reference.head);
        expect(batched.projections).toEqual(reference.projections);
        const flat = reference.answers.flat() as Array<Record<string, unknown>>;
        committed += flat.filter((a) => 'ok' in a).length;
        rejected += flat.filter((a) => !('ok' in a)).length;
      }),
      { numRuns: 30 },
    );
    // The workloads did exercise both outcomes, and the batched writer did batch.
    expect(committed).toBeGreaterThan(0);
    expect(rejected).toBeGreaterThan(0);
    expect(Math.max(...batchSizes)).toBeGreaterThan(1);
  }, 120_000);
});
