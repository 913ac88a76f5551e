import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { contractIdFromSeed } from '@ledgerline/canton';
import { NO_INTERFACES, type Claims, type Completion, type StoredReassignment } from '@ledgerline/domain';
import { dumpProjections, EventStore, rebuildProjections, type Database } from '@ledgerline/store';
import type { InterfaceDirectories } from '@ledgerline/server/infrastructure/interface-directories';
import { ParticipantIdentity } from '@ledgerline/server/infrastructure/participant-identity';
import { ReassignmentSettings } from '@ledgerline/server/modules/reassignment/commands/reassignment-settings';
import {
  SubmitReassignmentCommand,
  type ReassignmentRequestBody,
} from '@ledgerline/server/modules/reassignment/commands/submit-reassignment.command';
import { SubmitReassignmentHandler } from '@ledgerline/server/modules/reassignment/commands/submit-reassignment.handler';
import { InFlightSubmissions } from '@ledgerline/server/modules/transaction-submission/in-flight-submissions';
import {
  allocateLocalParties,
  archiveIfActive,
  createContract,
  createContracts,
  partyId,
} from '../../support/contracts';
import { openTestDatabase } from '../../support/database';

const A = `alpha::1220${'a1'.repeat(32)}`;
const B = `beta::1220${'b2'.repeat(32)}`;
const alice = partyId('alice');
const bob = partyId('bob');
const carol = partyId('carol');
const claims = (userId: string): Claims => ({ userId, identityProviderId: '', rights: [{ kind: 'CanActAsAnyParty' }] });

let database: Database;
let store: EventStore;
let store2: EventStore;
let identity: ParticipantIdentity;
// Reassignment results here use template filters only: no interface filter to match.
const noInterfaces = { forFormat: () => Promise.resolve(NO_INTERFACES) } as unknown as InterfaceDirectories;
const handler = (settings = new ReassignmentSettings(60_000, 3600), s = store) =>
  new SubmitReassignmentHandler(s, identity, settings, new InFlightSubmissions(), noInterfaces);
let main: SubmitReassignmentHandler;
let n = 0;

beforeAll(async () => {
  database = await openTestDatabase();
  store = new EventStore(database.db, { participantId: 'participant1::1220ab' });
  // A second writer on the same database, as a second service instance would be.
  store2 = new EventStore(database.db, { participantId: 'participant1::1220ab' });
  identity = new ParticipantIdentity('participant1', '1220ab', Buffer.alloc(32), [
    { alias: 'alpha', id: A },
    { alias: 'beta', id: B },
  ]);
  main = handler();
  await allocateLocalParties(store, [alice, bob, carol], identity.participantId, A);
});
afterAll(async () => {
  await store.close();
  await store2.close();
  await database.close();
});

const ledgerEnd = async () =>
  Number((await database.db.selectFrom('ledger_head').select('ledger_offset').executeTakeFirstOrThrow()).ledger_offset);
const row = (cid: string) =>
  database.db
    .selectFrom('contracts')
    .select(['status', 'synchronizer_id', 'reassignment_counter'])
    .where('contract_id', '=', cid)
    .executeTakeFirstOrThrow();

function unassign(contractIds: string[], o: { submitter?: string; commandId?: string } = {}): ReassignmentRequestBody {
  return {
    reassignmentCommands: {
      commandId: o.commandId ?? `c-${++n}`,
      submitter: o.submitter ?? alice,
      commands: contractIds.map((contractId) => ({
        command: { UnassignCommand: { value: { contractId, source: A, target: B } } },
      })),
    },
  };
}
function assign(reassignmentId: string, o: { submitter?: string; commandId?: string } = {}): ReassignmentRequestBody {
  return {
    reassignmentCommands: {
      commandId: o.commandId ?? `c-${++n}`,
      submitter: o.submitter ?? alice,
      commands: [{ command: { AssignCommand: { value: { reassignmentId, source: A, target: B } } } }],
    },
  };
}
const run = async (body: ReassignmentRequestBody, h = main, user = 'alice') =>
  (await h.execute(new SubmitReassignmentCommand(claims(user), body)))!;
/** The completions after `offset`: [command id, status code] in offset order. */
const completionsAfter = async (offset: number) =>
  (
    await database.db
      .selectFrom('command_completions')
      .select('completion')
      .where('completion_offset', '>', offset)
      .orderBy('completion_offset')
      .execute()
  ).map((r) => {
    const c = r.completion as Completion;
    return [c.commandId, c.status.code];
  });
const idOf = (data: StoredReassignment) => {
  const e = data.events[0];
  return 'Unassigned' in e ? e.Unassigned.reassignmentId : e.Assigned.reassignmentId;
};
const contract = (seed: string, observers = [bob]) =>
  createContract(store, { seed, signatories: [alice], observers, synchronizerId: A });

describe('reassignment under concurrency (real PostgreSQL)', () => {
  it('8 concurrent assigns of one reassignment id: exactly one succeeds, the others see it completed', async () => {
    const c = await contract('race-assign');
    const id = idOf((await run(unassign([c.contractId]))).data);
    const before = await ledgerEnd();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => run(assign(id), i % 2 ? main : handler(undefined, store2))),
    );
    const ok = outcomes.filter((o) => o.status === 'fulfilled');
    expect(ok).toHaveLength(1);
    for (const o of outcomes.filter((x) => x.status === 'rejected')) {
      expect((o as PromiseRejectedResult).reason).toMatchObject({
        code: 'INVALID_ARGUMENT',
        causeText: expect.stringContaining(`Cannot assign \`${id}\`: assignment has been completed`),
      });
    }
    expect(await ledgerEnd()).toBe(before + 1);
    expect(await row(c.contractId)).toEqual({ status: 'active', synchronizer_id: B, reassignment_counter: 1 });
  });

  it('concurrent unassign and archive of the same contract (two writers): exactly one succeeds, every round', async () => {
    for (let round = 0; round < 12; round++) {
      const c = await contract(`race-archive-${round}`);
      const before = await ledgerEnd();
      const [un, ar] = await Promise.allSettled([run(unassign([c.contractId])), archiveIfActive(store2, c, A)]);
      expect([un.status, ar.status].filter((s) => s === 'fulfilled')).toHaveLength(1);
      expect(await ledgerEnd()).toBe(before + 1);
      const r = await row(c.contractId);
      if (un.status === 'fulfilled') {
        expect(r).toEqual({ status: 'in_flight', synchronizer_id: null, reassignment_counter: 1 });
        expect((ar as PromiseRejectedResult).reason).toMatchObject({ code: 'CONTRACT_NOT_FOUND' });
      } else {
        expect(r).toEqual({ status: 'archived', synchronizer_id: null, reassignment_counter: 0 });
        expect(un.reason).toMatchObject({ causeText: expect.stringContaining('Current status Archived') });
      }
    }
  });

  it('a batch of 50 unassigns is one update with 50 events; its assign moves all 50 in one update', async () => {
    const created = await createContracts(
      store,
      Array.from({ length: 50 }, (_, i) => ({
        seed: `batch-${i}`,
        signatories: [alice],
        observers: i % 2 ? [bob] : [],
        synchronizerId: A,
      })),
    );
    const before = await ledgerEnd();
    const un = await run(unassign(created.map((c) => c.contractId)));
    expect(un.header).toMatchObject({ offset: before + 1, kind: 'Reassignment', synchronizerId: A });
    expect(un.header.parties.sort()).toEqual([alice, bob].sort());
    expect(un.data.events).toHaveLength(50);
    const id = idOf(un.data);
    un.data.events.forEach((e, i) => {
      expect('Unassigned' in e && e.Unassigned).toMatchObject({
        reassignmentId: id,
        contractId: created[i].contractId,
        nodeId: i,
        reassignmentCounter: 1,
      });
    });
    expect(await ledgerEnd()).toBe(before + 1);
    const { rows } = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM contracts WHERE contract_id = ANY(${created.map((c) => c.contractId)}::text[]) AND status = 'in_flight'`.execute(
      database.db,
    );
    expect(rows[0].n).toBe(50);
    const as = await run(assign(id));
    expect(as.header).toMatchObject({ offset: before + 2, synchronizerId: B });
    expect(as.data.events).toHaveLength(50);
    as.data.events.forEach((e, i) => {
      expect('Assigned' in e && e.Assigned).toMatchObject({
        reassignmentId: id,
        reassignmentCounter: 1,
        createdEvent: { ...created[i], nodeId: i },
      });
    });
    const active = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM contracts WHERE contract_id = ANY(${created.map((c) => c.contractId)}::text[]) AND status = 'active' AND synchronizer_id = ${B}`.execute(
      database.db,
    );
    expect(active.rows[0].n).toBe(50);
  });

  it('a batch of 50 with one bad contract id changes nothing', async () => {
    const created = await createContracts(
      store,
      Array.from({ length: 49 }, (_, i) => ({ seed: `bad-batch-${i}`, signatories: [alice], synchronizerId: A })),
    );
    const bad = contractIdFromSeed('bad-batch-missing');
    const ids = created.map((c) => c.contractId);
    ids.splice(31, 0, bad);
    const before = await ledgerEnd();
    await expect(run(unassign(ids))).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      causeText: expect.stringContaining(`Cannot unassign contract \`${bad}\`: unknown contract`),
    });
    expect(await ledgerEnd()).toBe(before);
    const { rows } = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM contracts WHERE contract_id = ANY(${ids}::text[]) AND status = 'active' AND reassignment_counter = 0`.execute(
      database.db,
    );
    expect(rows[0].n).toBe(49);
    const { rows: r2 } = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM reassignments WHERE contracts @> ${JSON.stringify([{ contractId: ids[0] }])}::jsonb`.execute(
      database.db,
    );
    expect(r2[0].n).toBe(0);
  });

  it('after the exclusivity deadline any hosted stakeholder may assign (timeout 0); a non-stakeholder still may not', async () => {
    const open = handler(new ReassignmentSettings(0, 3600));
    const c = await contract('exclusivity-over');
    const un = await run(unassign([c.contractId]), open);
    const u = un.data.events[0];
    expect('Unassigned' in u && u.Unassigned.assignmentExclusivity).toBeTruthy();
    const id = idOf(un.data);
    await expect(run(assign(id, { submitter: carol }), open, 'carol')).rejects.toMatchObject({
      causeText: expect.stringContaining('is not a stakeholder'),
    });
    const as = await run(assign(id, { submitter: bob }), open, 'bob');
    expect(as.data.events[0]).toMatchObject({ Assigned: { submitter: bob, reassignmentCounter: 1 } });
  });

  it('the same change id: in flight → SUBMISSION_ALREADY_IN_FLIGHT (synchronous, async too), committed → DUPLICATE_COMMAND (a rejected completion) until the period ends', async () => {
    const [c1, c2, c3] = [await contract('dedup-1'), await contract('dedup-2'), await contract('dedup-3')];
    const begin = await ledgerEnd();
    const first = run(unassign([c1.contractId], { commandId: 'same' }));
    const second = run(unassign([c2.contractId], { commandId: 'same' }));
    const asynchronous = main.execute(
      new SubmitReassignmentCommand(claims('alice'), unassign([c2.contractId], { commandId: 'same' }), false),
    );
    await expect(second).rejects.toMatchObject({
      code: 'SUBMISSION_ALREADY_IN_FLIGHT',
      category: { id: 2, httpStatus: 409 },
    });
    await expect(asynchronous).rejects.toMatchObject({ code: 'SUBMISSION_ALREADY_IN_FLIGHT' });
    const done = await first;
    // Refused before hand-over: only the first took an offset.
    expect(await ledgerEnd()).toBe(done.header.offset);
    await expect(run(unassign([c2.contractId], { commandId: 'same' }))).rejects.toMatchObject({
      code: 'DUPLICATE_COMMAND',
      context: { completion_offset: String(done.header.offset) },
    });
    // Asynchronously: the answer is null, the duplicate only a completion.
    expect(
      await main.execute(
        new SubmitReassignmentCommand(claims('alice'), unassign([c2.contractId], { commandId: 'same' }), false),
      ),
    ).toBeNull();
    // gRPC codes: ALREADY_EXISTS (duplicate); the success at the update's offset; nothing for the ones in flight.
    expect((await completionsAfter(begin)).sort()).toEqual(
      [
        ['same', 0],
        ['same', 6],
        ['same', 6],
      ].sort(),
    );
    expect(await row(c2.contractId)).toMatchObject({ status: 'active', synchronizer_id: A });
    // Another user, or another submitter, is another change id.
    expect(
      (await run(unassign([c2.contractId], { commandId: 'same' }), main, 'other-user')).header.offset,
    ).toBeGreaterThan(done.header.offset);
    // With a zero deduplication period the change id may be reused at once.
    const forgetful = handler(new ReassignmentSettings(60_000, 0));
    expect((await run(unassign([c3.contractId], { commandId: 'same' }), forgetful)).header.offset).toBeGreaterThan(
      done.header.offset,
    );
  });

  it('rebuilding the projections from the log gives identical reassignment rows', async () => {
    const live = await dumpProjections(database.db);
    expect(live.reassignments.length).toBeGreaterThan(0);
    expect(live.reassignment_completions.length).toBeGreaterThan(0);
    await rebuildProjections(database.db);
    expect(await dumpProjections(database.db)).toEqual(live);
  });
});
