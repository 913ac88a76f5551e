import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'kysely';
import {
  changes,
  dumpProjections,
  EventStore,
  partyUpdateDecider,
  rebuildProjections,
  type BatchInfo,
  type Database,
  type Decider,
} from '@ledgerline/store';
import {
  decideCreateUser,
  decideDeleteUser,
  decideGrantRights,
  decideRevokeRights,
  validateUpdatePartyDetails,
  type CommittedEvent,
  PARTY_ALLOCATED,
  type NewLedgerEvent,
} from '@ledgerline/domain';
import { UsersRepository } from '@ledgerline/store';
import { openTestDatabase } from '../../support/database';
import { foreignEvent } from '../../../testkit/foreign-event';

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database.close();
});

const update = (i: number): NewLedgerEvent =>
  foreignEvent({
    type: 'TestUpdate',
    stream: `test:${i}`,
    data: { i },
    update: { kind: 'Transaction', synchronizerId: 'sync::1220', parties: [`p${i % 7}`] },
  });

/** Starts a work that holds its batch open until `release()`: works queued meanwhile form the next batch together. */
async function holdBatch(
  store: EventStore,
  event: NewLedgerEvent,
): Promise<{ held: Promise<unknown>; release: () => void }> {
  let running!: () => void;
  const started = new Promise<void>((r) => (running = r));
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const held = store.execute(async (tx) => {
    running();
    await released;
    return tx.append([event]);
  });
  await started;
  return { held, release };
}

describe('event store', () => {
  it('gap safety: 50 concurrent appenders × 100 appends on two writer instances; a tailing reader only ever sees contiguous offsets', async () => {
    const writers = [
      new EventStore(database.db, { participantId: 'p1' }),
      new EventStore(database.db, { participantId: 'p1' }),
    ];
    const seen: number[] = [];
    let done = false;
    const reader = (async () => {
      let last = 0;
      while (!done || last < 5000) {
        const { rows } = await sql<{
          o: number;
        }>`SELECT ledger_offset AS o FROM ledger_updates WHERE ledger_offset > ${last} ORDER BY ledger_offset`.execute(
          database.db,
        );
        for (const r of rows) {
          // A reader that has seen `last` must next see exactly last+1: any gap would be an offset that later gets a
          // smaller neighbour.
          expect(Number(r.o)).toBe(last + 1);
          last = Number(r.o);
          seen.push(last);
        }
        if (rows.length === 0) await new Promise((r) => setTimeout(r, 2));
      }
    })();
    const acked: number[] = [];
    await Promise.all(
      Array.from({ length: 50 }, async (_, a) => {
        for (let k = 0; k < 100; k++) {
          const [e] = await writers[a % 2].append([update(a * 100 + k)]);
          acked.push(e.update!.offset);
        }
      }),
    );
    done = true;
    await reader;
    expect(acked.length).toBe(5000);
    expect(new Set(acked).size).toBe(5000);
    expect(seen).toEqual(Array.from({ length: 5000 }, (_, i) => i + 1));
    const { rows } = await sql<{
      n: number;
      max: number;
    }>`SELECT count(*)::int AS n, max(ledger_offset)::int AS max FROM event_log`.execute(database.db);
    expect(rows[0]).toEqual({ n: 5000, max: 5000 });
    // update ids are unique and in Canton form
    const ids = await sql<{ update_id: string }>`SELECT update_id FROM ledger_updates`.execute(database.db);
    expect(ids.rows.every((r) => /^1220[0-9a-f]{64}$/.test(r.update_id))).toBe(true);
    expect(new Set(ids.rows.map((r) => r.update_id)).size).toBe(5000);
  });

  it.each(['batched', 'reference'] as const)(
    '%s writer: a rejected work does not affect the others; a work that throws after appending leaves nothing behind',
    async (writer) => {
      const store = new EventStore(database.db, { participantId: 'p1', writer });
      const users = new UsersRepository();
      const mk = (id: string) => ({
        id: `${writer}-${id}`,
        primaryParty: '',
        isDeactivated: false,
        annotations: {},
        identityProviderId: '',
      });
      const create = (id: string) =>
        store.execute(async (tx) => tx.append(decideCreateUser(await users.state(tx.db, mk(id).id), mk(id), [])));
      const results = await Promise.allSettled([
        create('u1'),
        create('u1'), // duplicate → rejected
        store.execute(async (tx) => {
          await tx.append(decideCreateUser(await users.state(tx.db, mk('u2').id), mk('u2'), []));
          throw new Error('boom after append');
        }),
        create('u3'),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
      expect((results[1] as PromiseRejectedResult).reason.code).toBe('USER_ALREADY_EXISTS');
      expect((results[2] as PromiseRejectedResult).reason.code).toBe('SERVICE_NOT_RUNNING');
      expect(await users.get(database.db, mk('u1').id)).not.toBeNull();
      expect(await users.get(database.db, mk('u2').id)).toBeNull();
      expect(await users.get(database.db, mk('u3').id)).not.toBeNull();
      await store.close();
    },
  );

  it.each(['batched', 'reference'] as const)(
    "%s writer: a work cannot begin or end a transaction on the writer's connection",
    async (writer) => {
      const store = new EventStore(database.db, { participantId: 'p1', writer });
      const [committed] = await store.execute(async (tx) => {
        let ran = false;
        // (The reference writer's Kysely transaction throws at `transaction()`, the batched writer's connection at BEGIN.)
        const nested = async () =>
          tx.db.transaction().execute(async () => {
            ran = true;
          });
        await expect(nested()).rejects.toThrow(/transaction/);
        // The batched writer's connection refuses a controlled transaction too (the reference writer's would open another).
        if (writer === 'batched') await expect(tx.db.startTransaction().execute()).rejects.toThrow(/transaction/);
        expect(ran).toBe(false);
        return tx.append([update(1)]);
      });
      // The work's own transaction was left alone: it committed.
      const { rows } =
        await sql`SELECT 1 FROM ledger_updates WHERE ledger_offset = ${committed.update!.offset}`.execute(database.db);
      expect(rows).toHaveLength(1);
      await store.close();
    },
  );

  it('linger: while a batch commits, works that arrive within lingerMs join the next batch; an idle store does not wait', async () => {
    const sizes: number[] = [];
    const store = new EventStore(database.db, {
      participantId: 'p1',
      lingerMs: 300,
      onBatch: ({ size }) => sizes.push(size),
    });
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    // A holds its batch until B has queued, so B's batch is the next one and lingers once A commits.
    let aStarted!: () => void;
    let releaseA!: () => void;
    const aRunning = new Promise<void>((r) => (aStarted = r));
    const held = new Promise<void>((r) => (releaseA = r));
    const a = store.execute(async (tx) => {
      aStarted();
      await held;
      return tx.append([update(1)]);
    });
    await aRunning;
    const b = store.append([update(2)]);
    releaseA();
    await a;
    await sleep(20); // A has committed; B's batch has not opened yet
    const c = store.append([update(3)]);
    const [[eb], [ec]] = await Promise.all([b, c]);
    expect(sizes).toEqual([1, 2]); // B and C committed together
    expect(ec.update!.offset).toBe(eb.update!.offset + 1);

    // Idle: nothing in flight, so a lone work starts at once, one after the other.
    const idle = new EventStore(database.db, { participantId: 'p1', lingerMs: 1_000 });
    const started = performance.now();
    for (let i = 0; i < 3; i++) await idle.append([update(10 + i)]);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("reports each batch's time by phase: they add up to the batch's duration; a load and a decision show where they ran; a batch re-run work by work reports none", async () => {
    const infos: BatchInfo[] = [];
    const store = new EventStore(database.db, { participantId: 'p1', onBatch: (i) => infos.push(i) });
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const slow: Decider<string, { id: string }, number, CommittedEvent[]> = {
      name: 'slow',
      key: (id) => ({ id }),
      conflicts: { id: changes('user') },
      load: async (_db, keys) => {
        await sleep(40);
        return keys.map(() => 0);
      },
      // The decision's own write (data its events refer to) runs in the decide phase.
      decide: () => ({
        events: [update(1)],
        answer: (committed) => [...committed],
        writeFirst: async () => void (await sleep(60)),
      }),
    };
    await store.decide(slow, 'k');
    // onBatch follows the works' answers
    await vi.waitFor(() => expect(infos).toHaveLength(1));
    const { phases, durationMs } = infos[0];
    expect(phases).toBeDefined();
    const p = phases!;
    expect(p.load).toBeGreaterThanOrEqual(39);
    expect(p.load).toBeLessThan(99); // the decision's 60 ms are not in it
    expect(p.decide).toBeGreaterThanOrEqual(59);
    for (const v of Object.values(p)) expect(v).toBeGreaterThanOrEqual(0);
    expect(p.write).toBeGreaterThan(0);
    expect(p.commit).toBeGreaterThan(0);
    const sum = p.lock + p.load + p.decide + p.write + p.commit;
    expect(sum).toBeLessThanOrEqual(durationMs + 0.001);
    expect(sum).toBeGreaterThanOrEqual(p.load + 59);

    // One work breaks the transaction: the batch is re-run work by work, and reports no phases. A first work holds its
    // batch until the other two have queued, so they form the next batch together.
    infos.length = 0;
    const { held, release } = await holdBatch(store, update(2));
    const results = await Promise.allSettled([
      store.append([update(3)]),
      store.execute(async (tx) => {
        await tx.append([update(4)]);
        throw new Error('boom after append');
      }),
      (async () => {
        await sleep(20);
        release();
      })(),
    ]);
    await held;
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    await vi.waitFor(() => expect(infos).toHaveLength(2));
    expect(infos.map((i) => [i.size, i.phases === undefined])).toEqual([
      [1, false],
      [2, true],
    ]);
  });

  it("a segment's load that fails for one command's key fails that command alone: the batch is re-run work by work", async () => {
    const store = new EventStore(database.db, { participantId: 'p1' });
    const loads: string[][] = [];
    const picky: Decider<string, { id: string }, string, CommittedEvent[]> = {
      name: 'picky',
      key: (id) => ({ id }),
      conflicts: { id: changes('user') },
      load: async (db, keys) => {
        loads.push(keys.map((k) => k.id));
        // A statement error for the bad key only (division by zero), as a data exception validation missed would be.
        const { rows } = await sql<{
          v: string;
        }>`SELECT (1 / (CASE WHEN k = 'bad' THEN 0 ELSE 1 END))::text AS v FROM unnest(${keys.map((k) => k.id)}::text[]) AS k`.execute(
          db,
        );
        return rows.map((r) => r.v);
      },
      decide: () => ({ events: [update(1)], answer: (committed) => [...committed] }),
    };
    // A first work holds its batch until the others have queued, so they form the next batch (one segment) together.
    const { held, release } = await holdBatch(store, update(0));
    const results = Promise.allSettled([
      store.decide(picky, 'a'),
      store.decide(picky, 'bad'),
      store.decide(picky, 'b'),
    ]);
    release();
    await held;
    const [a, bad, b] = await results;
    expect(a.status).toBe('fulfilled');
    expect(b.status).toBe('fulfilled');
    expect(bad.status).toBe('rejected');
    expect(loads[0]).toEqual(['a', 'bad', 'b']);
    expect(loads.slice(1)).toEqual([['a'], ['bad'], ['b']]);
  });

  it('projections rebuilt by replay equal the live ones, row for row, after a random workload', async () => {
    const store = new EventStore(database.db, { participantId: 'p1' });
    const users = new UsersRepository();
    let seed = 42;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const parties = ['a::1220aa', 'b::1220bb', 'c::1220cc'];
    const ops: Array<Promise<unknown>> = [];
    for (let i = 0; i < 400; i++) {
      const id = `w${rnd(30)}`;
      const kind = rnd(5);
      ops.push(
        store
          .execute(async (tx) => {
            const state = await users.state(tx.db, id);
            const right = { kind: 'CanActAs' as const, party: parties[rnd(3)] };
            if (kind === 0)
              return tx.append(
                decideCreateUser(
                  state,
                  {
                    id,
                    primaryParty: parties[rnd(3)],
                    isDeactivated: false,
                    annotations: { k: String(i) },
                    identityProviderId: '',
                  },
                  [right],
                ),
              );
            if (kind === 1)
              return tx.append(decideGrantRights(state, id, [right, { kind: 'CanReadAsAnyParty' }]).events);
            if (kind === 2) return tx.append(decideRevokeRights(state, id, [right]).events);
            if (kind === 3) return tx.append(decideDeleteUser(state, id));
            return tx.append([update(i)]);
          })
          .catch(() => undefined),
      );
    }
    await Promise.all(ops);
    const live = await dumpProjections(database.db);
    expect(live.users.length).toBeGreaterThan(0);
    expect(live.ledger_updates.length).toBeGreaterThan(0);
    await rebuildProjections(database.db, { chunk: 97 });
    const rebuilt = await dumpProjections(database.db);
    expect(rebuilt).toEqual(live);
  });

  it('keyed works: one load per segment; a work that reads what an earlier one of its batch changes runs in a later segment and sees it; plain works see keyed writes', async () => {
    const store = new EventStore(database.db, { participantId: 'p1' });
    const [p1, p2] = ['seg-one::1220aa', 'seg-two::1220bb'];
    const allocated = (party: string): NewLedgerEvent => ({
      type: PARTY_ALLOCATED,
      stream: `party:${party}`,
      data: {
        party,
        isLocal: true,
        identityProviderId: '',
        annotations: {},
        synchronizerId: 'sync::1220',
        participantId: 'p1',
      },
    });
    await store.append([allocated(p1), allocated(p2)]);
    const loads: string[][] = [];
    // The party-update decider, counting its loads.
    const counting: typeof partyUpdateDecider = {
      ...partyUpdateDecider,
      load: (db, keys, at) => {
        loads.push(keys.map((k) => k.party));
        return partyUpdateDecider.load(db, keys, at);
      },
    };
    const patch = async (party: string, key: string, version: string) => {
      const request = validateUpdatePartyDetails(
        {
          partyDetails: {
            party,
            isLocal: true,
            identityProviderId: '',
            localMetadata: { resourceVersion: version, annotations: { [key]: 'x' } },
          },
          updateMask: { paths: ['local_metadata.annotations'] },
        },
        '',
      );
      return (await store.decide(counting, request)).resourceVersion;
    };
    const versions = async (tx: { db: typeof database.db }) =>
      (
        await sql<{
          party: string;
          v: string;
        }>`SELECT party, resource_version AS v FROM party_details WHERE party IN (${p1}, ${p2}) ORDER BY party`.execute(
          tx.db,
        )
      ).rows.map((r) => Number(r.v));
    // The first work commits alone; the rest queue meanwhile and form the next batch.
    const first = store.append([update(1)]);
    const results = await Promise.all([
      patch(p1, 'a', '0'),
      patch(p2, 'b', '0'),
      patch(p1, 'c', '1'), // reads what the first PATCH changes: next segment, sees version 1
      store.execute(async (tx) => versions(tx)), // a plain work: sees both PATCHes before it
      patch(p2, 'd', '1'),
      first,
    ]);
    expect(results.slice(0, 5)).toEqual([1, 1, 2, [2, 1], 2]);
    expect(loads).toEqual([[p1, p2], [p1], [p2]]);
    const { rows } = await sql<{
      annotations: Record<string, string>;
    }>`SELECT annotations FROM party_details WHERE party IN (${p1}, ${p2}) ORDER BY party`.execute(database.db);
    expect(rows.map((r) => r.annotations)).toEqual([
      { a: 'x', c: 'x' },
      { b: 'x', d: 'x' },
    ]);
    // a stale version in a keyed work is rejected without touching the rest of its batch
    const stale = await Promise.allSettled([patch(p1, 'e', '0'), patch(p2, 'f', '2')]);
    expect(stale.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
    expect((stale[0] as PromiseRejectedResult).reason.code).toBe('CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED');
    const live = await dumpProjections(database.db);
    await rebuildProjections(database.db);
    expect(await dumpProjections(database.db)).toEqual(live);
  });
});
