import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ColumnTypes, RowBuffer } from '../../../libs/store/src/projections/row-buffer';
import type { Database } from '../../../libs/store/src';
import { openTestDatabase } from '../../support/database';

/** The batch writer of insert-only projections: one statement per batch, values and defaults as a row-by-row INSERT would. */
let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
  await sql`CREATE TABLE rb_plain (id bigint PRIMARY KEY, meta jsonb, note text NOT NULL DEFAULT 'dflt', flag boolean, quote text)`.execute(database.db);
  await sql`CREATE TABLE rb_array (id bigint PRIMARY KEY, tags text[] NOT NULL, n int NOT NULL DEFAULT 7)`.execute(database.db);
});
afterAll(async () => {
  await database.close();
});

describe('RowBuffer', () => {
  it('writes rows of several tables in one go: jsonb objects and JSON text, NULLs, quotes, column defaults for absent keys, array columns', async () => {
    const buffer = new RowBuffer();
    buffer.add('rb_plain', [
      { id: 1, meta: { a: [1, 'x'] }, note: 'given', flag: true, quote: 'he said "hi" \\ {x,y}' },
      { id: 2, meta: '{"b":2}', flag: false, quote: null },
      { id: 3, meta: null, flag: null, quote: '' },
    ]);
    buffer.add('rb_array', [{ id: 1, tags: ['a', 'b,c', 'd"e'] }, { id: 2, tags: [], n: 3 }]);
    await database.db.transaction().execute(async (trx) => {
      await buffer.flush(trx, new ColumnTypes(), sql`SELECT 1`);
    });
    expect(buffer.isEmpty).toBe(true);
    const plain = await sql<Record<string, unknown>>`SELECT * FROM rb_plain ORDER BY id`.execute(database.db);
    expect(plain.rows).toEqual([
      { id: 1, meta: { a: [1, 'x'] }, note: 'given', flag: true, quote: 'he said "hi" \\ {x,y}' },
      { id: 2, meta: { b: 2 }, note: 'dflt', flag: false, quote: null },
      { id: 3, meta: null, note: 'dflt', flag: null, quote: '' },
    ]);
    const arrays = await sql<Record<string, unknown>>`SELECT * FROM rb_array ORDER BY id`.execute(database.db);
    expect(arrays.rows).toEqual([
      { id: 1, tags: ['a', 'b,c', 'd"e'], n: 7 },
      { id: 2, tags: [], n: 3 },
    ]);
  });

  it('writes 40,000 rows with array columns in one statement', async () => {
    const buffer = new RowBuffer();
    buffer.add('rb_array', Array.from({ length: 40_000 }, (_, i) => ({ id: 100 + i, tags: [`t${i}`] })));
    await database.db.transaction().execute((trx) => buffer.flush(trx, new ColumnTypes()));
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM rb_array WHERE id >= 100`.execute(database.db);
    expect(rows[0].n).toBe(40_000);
  });

  it('keyed updates: one statement per column set; a compare-and-set that no longer matches fails the flush; touches() names pending keys', async () => {
    await sql`CREATE TABLE rb_keyed (k text PRIMARY KEY, v bigint NOT NULL, meta jsonb, note text)`.execute(database.db);
    await sql`INSERT INTO rb_keyed VALUES ('a', 0, NULL, NULL), ('b', 5, NULL, NULL)`.execute(database.db);
    const buffer = new RowBuffer();
    buffer.add('rb_keyed', [{ k: 'c', v: 1 }], 'k');
    buffer.update({ table: 'rb_keyed', key: { column: 'k', value: 'a' }, set: { v: 1, meta: { x: 1 } }, expect: { column: 'v', value: 0 } });
    buffer.update({ table: 'rb_keyed', key: { column: 'k', value: 'b' }, set: { note: null } });
    buffer.update({ table: 'rb_keyed', key: { column: 'k', value: 'missing' }, set: { note: 'ignored' } });
    expect([buffer.touches('rb_keyed', 'a'), buffer.touches('rb_keyed', 'c'), buffer.touches('rb_keyed', 'z')]).toEqual([true, true, false]);
    await database.db.transaction().execute((trx) => buffer.flush(trx, new ColumnTypes()));
    expect(buffer.touches('rb_keyed', 'a')).toBe(false);
    const { rows } = await sql<Record<string, unknown>>`SELECT * FROM rb_keyed ORDER BY k`.execute(database.db);
    expect(rows).toEqual([
      { k: 'a', v: 1, meta: { x: 1 }, note: null },
      { k: 'b', v: 5, meta: null, note: null },
      { k: 'c', v: 1, meta: null, note: null },
    ]);
    buffer.update({ table: 'rb_keyed', key: { column: 'k', value: 'a' }, set: { v: 2 }, expect: { column: 'v', value: 0 } });
    await expect(database.db.transaction().execute((trx) => buffer.flush(trx, new ColumnTypes()))).rejects.toThrow(/expected 1/);
    const after = await sql<{ v: number }>`SELECT v FROM rb_keyed WHERE k = 'a'`.execute(database.db);
    expect(after.rows[0].v).toBe(1);
  });

  it('with thenCommit, COMMIT follows the statement at once: the transaction commits once, and a compare-and-set that fails leaves nothing committed', async () => {
    await sql`CREATE TABLE rb_commit (k text PRIMARY KEY, v bigint NOT NULL)`.execute(database.db);
    await sql`INSERT INTO rb_commit VALUES ('a', 0)`.execute(database.db);
    // Notices on the pool's connections: a second COMMIT would draw "there is no transaction in progress".
    const notices: string[] = [];
    const listening = new WeakSet<object>();
    database.pool.on('acquire', (client) => {
      if (listening.has(client)) return;
      listening.add(client);
      client.on('notice', (n) => notices.push(n.message ?? ''));
    });

    const ok = new RowBuffer();
    ok.add('rb_commit', [{ k: 'b', v: 1 }], 'k');
    ok.update({ table: 'rb_commit', key: { column: 'k', value: 'a' }, set: { v: 1 }, expect: { column: 'v', value: 0 } });
    await database.db.transaction().execute(async (trx) => {
      await ok.flush(trx, new ColumnTypes(), sql`SELECT 1`, true);
      // The COMMIT is already on its way: another connection sees the rows before this transaction "asks" for it.
      for (let i = 0; i < 50; i++) {
        const seen = await sql<{ n: number }>`SELECT count(*)::int AS n FROM rb_commit WHERE v = 1`.execute(database.db);
        if (seen.rows[0].n === 2) return;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error('the flush was not committed behind the statement');
    });
    expect((await sql<Record<string, unknown>>`SELECT * FROM rb_commit ORDER BY k`.execute(database.db)).rows).toEqual([
      { k: 'a', v: 1 },
      { k: 'b', v: 1 },
    ]);

    const stale = new RowBuffer();
    stale.add('rb_commit', [{ k: 'c', v: 9 }], 'k');
    stale.update({ table: 'rb_commit', key: { column: 'k', value: 'a' }, set: { v: 2 }, expect: { column: 'v', value: 0 } });
    await expect(database.db.transaction().execute((trx) => stale.flush(trx, new ColumnTypes(), undefined, true))).rejects.toThrow(
      /projection write w1 changed 0 rows, expected 1/,
    );
    expect((await sql<Record<string, unknown>>`SELECT * FROM rb_commit ORDER BY k`.execute(database.db)).rows).toEqual([
      { k: 'a', v: 1 },
      { k: 'b', v: 1 },
    ]);
    // The connection is clean afterwards: a plain transaction on the pool commits normally.
    await database.db.transaction().execute((trx) => sql`INSERT INTO rb_commit VALUES ('d', 4)`.execute(trx));
    expect((await sql<{ n: number }>`SELECT count(*)::int AS n FROM rb_commit`.execute(database.db)).rows[0].n).toBe(3);
    expect(notices.filter((m) => /no transaction in progress/.test(m))).toEqual([]);
  });
});
