import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { EventStore, LedgerUpdatesRepository, type Database } from '@ledgerline/store';
import type { NewLedgerEvent } from '@ledgerline/domain';
import { openTestDatabase } from '../../support/database';
import { created, tx, txEvent } from '../../support/updates-scenario';

let database: Database;
const repo = new LedgerUpdatesRepository();
const PARTIES = Array.from({ length: 50 }, (_, i) => `p${i}::1220${'00'.repeat(32)}`);
const N = 3000;

beforeAll(async () => {
  database = await openTestDatabase();
  const store = new EventStore(database.db, { participantId: 'p1' });
  // Update i is seen by party i % 50 and, every 7th, also by party 49.
  const events: NewLedgerEvent[] = Array.from({ length: N }, (_, i) => {
    const party = PARTIES[i % 50];
    const parties = i % 7 === 0 && party !== PARTIES[49] ? [party, PARTIES[49]] : [party];
    return txEvent(`c:${i}`, tx(`cmd-${i}`, [{ CreatedEvent: created(i, 'iou', parties, []) }], [party]), parties);
  });
  for (let i = 0; i < N; i += 500) await store.append(events.slice(i, i + 500));
  await sql`ANALYZE`.execute(database.db);
});
afterAll(async () => database?.close());

const offsetsOf = (rows: Array<{ offset: number }>) => rows.map((r) => r.offset);

describe('LedgerUpdatesRepository', () => {
  it('pages by offset range in both directions, unfiltered and party-filtered', async () => {
    expect(
      offsetsOf(await repo.page(database.db, { after: 10, upTo: 20, descending: false, parties: null, limit: 5 })),
    ).toEqual([11, 12, 13, 14, 15]);
    expect(
      offsetsOf(await repo.page(database.db, { after: 10, upTo: 20, descending: true, parties: null, limit: 5 })),
    ).toEqual([20, 19, 18, 17, 16]);
    // party 3 sees offsets 4, 54, 104, …; party 49 sees 50, 100, … and every 7th update (i % 7 == 0 → offset i+1).
    expect(
      offsetsOf(
        await repo.page(database.db, { after: 0, upTo: N, descending: false, parties: [PARTIES[3]], limit: 3 }),
      ),
    ).toEqual([4, 54, 104]);
    const two = await repo.page(database.db, {
      after: 0,
      upTo: 60,
      descending: false,
      parties: [PARTIES[3], PARTIES[49]],
      limit: 100,
    });
    expect(offsetsOf(two)).toEqual([1, 4, 8, 15, 22, 29, 36, 43, 50, 54, 57]);
    const down = await repo.page(database.db, {
      after: 0,
      upTo: 60,
      descending: true,
      parties: [PARTIES[3], PARTIES[49]],
      limit: 4,
    });
    expect(offsetsOf(down)).toEqual([57, 54, 50, 43]);
    expect(await repo.page(database.db, { after: 0, upTo: N, descending: false, parties: [], limit: 10 })).toEqual([]);
    expect(
      (
        await repo.page(database.db, {
          after: 0,
          upTo: N,
          descending: false,
          parties: null,
          kinds: ['Reassignment'],
          limit: 10,
        })
      ).length,
    ).toBe(0);
  });

  it('a many-party page (window first, then per-party probes) equals the updates those parties see, both directions', async () => {
    // Who sees offset o (update i = o - 1): party i % 50, and party 49 when i % 7 == 0.
    const seers = (o: number) => new Set([PARTIES[(o - 1) % 50], ...((o - 1) % 7 === 0 ? [PARTIES[49]] : [])]);
    const expected = (parties: string[], after: number, upTo: number, descending: boolean, limit: number) => {
      const wanted = new Set(parties);
      const all = Array.from({ length: upTo - after }, (_, k) => after + 1 + k).filter((o) =>
        [...seers(o)].some((p) => wanted.has(p)),
      );
      return (descending ? all.reverse() : all).slice(0, limit);
    };
    const cases: Array<{ parties: string[]; after: number; upTo: number; limit: number }> = [
      // dense: 40 of 50 parties, the page fills inside the window
      { parties: PARTIES.slice(0, 40), after: 0, upTo: N, limit: 25 },
      // sparse: parties 0–7 plus 246 that see nothing; the window holds part of the page, the probes the rest
      {
        parties: [
          ...PARTIES.slice(0, 8),
          ...Array.from({ length: 246 }, (_, i) => `nobody${i}::1220${'00'.repeat(32)}`),
        ],
        after: 5,
        upTo: N,
        limit: 30,
      },
      // one party of eight sees anything, and only every 50th update: the window finds little, the probes the rest
      {
        parties: [PARTIES[20], ...Array.from({ length: 7 }, (_, i) => `nobody${i}::1220${'00'.repeat(32)}`)],
        after: 0,
        upTo: N,
        limit: 12,
      },
      // party 20 sees offsets 21, 71, 121, …: the window's first offset past it (50 + 4 × 5 + 1 = 71) and, descending,
      // its last one before it (91 − 20 = 71) are seen, so the probes must start exactly at the window's edge
      {
        parties: [PARTIES[20], ...Array.from({ length: 7 }, (_, i) => `nobody${i}::1220${'00'.repeat(32)}`)],
        after: 50,
        upTo: N,
        limit: 5,
      },
      {
        parties: [PARTIES[20], ...Array.from({ length: 7 }, (_, i) => `nobody${i}::1220${'00'.repeat(32)}`)],
        after: 0,
        upTo: 91,
        limit: 5,
      },
      // a range shorter than the window, and the range's end reached before the limit
      { parties: PARTIES.slice(10, 20), after: 2900, upTo: 2990, limit: 500 },
    ];
    for (const c of cases)
      for (const descending of [false, true])
        expect(
          offsetsOf(await repo.page(database.db, { ...c, descending })),
          JSON.stringify({ ...c, parties: c.parties.length, descending }),
        ).toEqual(expected(c.parties, c.after, c.upTo, descending, c.limit));
  });

  it('looks updates up by id', async () => {
    const [first] = await repo.page(database.db, { after: 41, upTo: 42, descending: false, parties: null, limit: 1 });
    expect(await repo.byUpdateId(database.db, first.updateId)).toEqual(first);
    expect(await repo.byUpdateId(database.db, '1220' + 'ff'.repeat(32))).toBeNull();
  });

  it('a party-filtered page is index-driven: the plan never scans a whole table', async () => {
    const parties = [PARTIES[3], PARTIES[49]];
    const { rows } = await sql<{ 'QUERY PLAN': string }>`
      EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
      SELECT u.ledger_offset, u.payload
      FROM (
        SELECT DISTINCT x.o FROM unnest(${parties}::text[]) AS p(party)
        CROSS JOIN LATERAL (
          SELECT lup.ledger_offset AS o FROM ledger_update_parties lup
          WHERE lup.party = p.party AND lup.ledger_offset > 100 AND lup.ledger_offset <= ${N}
          ORDER BY lup.ledger_offset ASC LIMIT 20
        ) x
        ORDER BY x.o ASC LIMIT 20
      ) c
      JOIN ledger_updates u ON u.ledger_offset = c.o
      ORDER BY u.ledger_offset ASC`.execute(database.db);
    const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).not.toMatch(/Seq Scan/);
    expect(plan).toMatch(/Index (Only )?Scan using ledger_update_parties_pkey/);
    expect(plan).toMatch(/Index Scan using ledger_updates_pkey/);
    // Rows touched in the parties index: at most the page size per requested party.
    const touched = [
      ...plan.matchAll(/Index Only Scan using ledger_update_parties_pkey[^\n]*\(actual rows=(\d+) loops=(\d+)\)/g),
    ];
    for (const m of touched) expect(Number(m[1])).toBeLessThanOrEqual(20);
    const wildcard = await sql<{ 'QUERY PLAN': string }>`
      EXPLAIN (COSTS OFF) SELECT ledger_offset, payload FROM ledger_updates WHERE ledger_offset > 100 AND ledger_offset <= ${N} ORDER BY ledger_offset LIMIT 20`.execute(
      database.db,
    );
    expect(wildcard.rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/Index Scan using ledger_updates_pkey/);
  });

  it('reports the ledger end, head record time and pruning offset', async () => {
    const pos = await repo.position(database.db);
    expect(pos.ledgerEnd).toBe(N);
    expect(pos.prunedUpTo).toBe(0);
    expect(pos.recordTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
  });
});
