import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { dumpProjections, EventStore, rebuildProjections, type Database } from '../../../libs/store/src';
import { decideCreateUser, decideDeleteUser, decideGrantRights, decideRevokeRights, type NewEvent } from '../../../libs/domain/src';
import { UsersRepository } from '../../../libs/store/src';
import { openTestDatabase } from '../../support/database';

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database.close();
});

const update = (i: number): NewEvent => ({
  type: 'TestUpdate',
  stream: `test:${i}`,
  data: { i },
  update: { kind: 'Transaction', synchronizerId: 'sync::1220', parties: [`p${i % 7}`] },
});

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
        const { rows } = await sql<{ o: number }>`SELECT ledger_offset AS o FROM ledger_updates WHERE ledger_offset > ${last} ORDER BY ledger_offset`.execute(database.db);
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
    const { rows } = await sql<{ n: number; max: number }>`SELECT count(*)::int AS n, max(ledger_offset)::int AS max FROM event_log`.execute(database.db);
    expect(rows[0]).toEqual({ n: 5000, max: 5000 });
    // update ids are unique and in Canton form
    const ids = await sql<{ update_id: string }>`SELECT update_id FROM ledger_updates`.execute(database.db);
    expect(ids.rows.every((r) => /^1220[0-9a-f]{64}$/.test(r.update_id))).toBe(true);
    expect(new Set(ids.rows.map((r) => r.update_id)).size).toBe(5000);
  });

  it('a rejected work in a batch does not affect the others; a work that throws after appending leaves nothing behind', async () => {
    const store = new EventStore(database.db, { participantId: 'p1' });
    const users = new UsersRepository();
    const mk = (id: string) => ({ id, primaryParty: '', isDeactivated: false, annotations: {}, identityProviderId: '' });
    const results = await Promise.allSettled([
      store.execute(async (tx) => tx.append(decideCreateUser(await users.state(tx.db, 'u1'), mk('u1'), []))),
      store.execute(async (tx) => tx.append(decideCreateUser(await users.state(tx.db, 'u1'), mk('u1'), []))), // duplicate → rejected
      store.execute(async (tx) => {
        await tx.append(decideCreateUser(await users.state(tx.db, 'u2'), mk('u2'), []));
        throw new Error('boom after append');
      }),
      store.execute(async (tx) => tx.append(decideCreateUser(await users.state(tx.db, 'u3'), mk('u3'), []))),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason.code).toBe('USER_ALREADY_EXISTS');
    expect(await users.get(database.db, 'u1')).not.toBeNull();
    expect(await users.get(database.db, 'u2')).toBeNull();
    expect(await users.get(database.db, 'u3')).not.toBeNull();
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
            if (kind === 0) return tx.append(decideCreateUser(state, { id, primaryParty: parties[rnd(3)], isDeactivated: false, annotations: { k: String(i) }, identityProviderId: '' }, [right]));
            if (kind === 1) return tx.append(decideGrantRights(state, id, [right, { kind: 'CanReadAsAnyParty' }]).events);
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
});
