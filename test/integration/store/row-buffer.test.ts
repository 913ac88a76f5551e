import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely';
import { Pool } from 'pg';
import type { ColumnTypeMap, Database } from '@ledgerline/store';
import { SameAs } from '@ledgerline/store/projections/projection';
import { RowBuffer } from '@ledgerline/store/writer/row-buffer';
import { writeBuffered } from '@ledgerline/store/writer/buffered-sink';
import { buildWriteStatement } from '@ledgerline/store/writer/statement-builder';
import { WriteConnection } from '@ledgerline/store/writer/write-connection';
import { openTestDatabase } from '../../support/database';

/** Tables of this file, typed for the buffer, and their SQL types for the statement builder. */
interface TestDB {
  rb_plain: { id: number; meta: unknown; note: string | undefined; flag: boolean | null; quote: string | null };
  rb_array: { id: number; tags: string[]; n: number | undefined };
  rb_prep: { id: number; tags: string[] };
  rb_keyed: { k: string; v: number; meta: unknown; note: string | null };
  rb_commit: { k: string; v: number };
  rb_src: { seq: number; data: string; note: string | null };
  rb_copy: { id: number; seq: number; payload: string };
}
const COLUMNS = {
  rb_plain: { id: 'bigint', meta: 'jsonb', note: 'text', flag: 'boolean', quote: 'text' },
  rb_array: { id: 'bigint', tags: 'text[]', n: 'integer' },
  rb_prep: { id: 'bigint', tags: 'text[]' },
  rb_keyed: { k: 'text', v: 'bigint', meta: 'jsonb', note: 'text' },
  rb_commit: { k: 'text', v: 'bigint' },
  rb_src: { seq: 'bigint', data: 'jsonb', note: 'text' },
  rb_copy: { id: 'bigint', seq: 'bigint', payload: 'jsonb' },
} as const satisfies ColumnTypeMap<TestDB>;

const flush = (db: Kysely<TestDB>, buffer: RowBuffer<TestDB>) => writeBuffered(db, buffer, COLUMNS);

/** The batched writer's statement: one statement per batch, values and defaults as a row-by-row INSERT would. */
let database: Database & { url: string };
let db: Kysely<TestDB>;
beforeAll(async () => {
  database = await openTestDatabase();
  db = database.db as unknown as Kysely<TestDB>;
  await sql`CREATE TABLE rb_plain (id bigint PRIMARY KEY, meta jsonb, note text NOT NULL DEFAULT 'dflt', flag boolean, quote text)`.execute(
    database.db,
  );
  await sql`CREATE TABLE rb_array (id bigint PRIMARY KEY, tags text[] NOT NULL, n int NOT NULL DEFAULT 7)`.execute(
    database.db,
  );
});
afterAll(async () => {
  await database.close();
});

describe('RowBuffer and the write statement', () => {
  it('writes rows of several tables in one go: jsonb objects and JSON text, NULLs, quotes, column defaults for absent keys, array columns', async () => {
    const buffer = new RowBuffer<TestDB>();
    buffer.add('rb_plain', [
      { id: 1, meta: { a: [1, 'x'] }, note: 'given', flag: true, quote: 'he said "hi" \\ {x,y}' },
      { id: 2, meta: '{"b":2}', flag: false, quote: null },
      { id: 3, meta: null, flag: null, quote: '' },
    ]);
    buffer.add('rb_array', [
      { id: 1, tags: ['a', 'b,c', 'd"e'] },
      { id: 2, tags: [], n: 3 },
    ]);
    await db.transaction().execute(async (trx) => {
      // A tail statement is checked to return one row.
      const statement = buildWriteStatement(buffer.take(), COLUMNS, () => 'SELECT 1')!;
      await trx.executeQuery(CompiledQuery.raw(statement.text, statement.values));
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
    const buffer = new RowBuffer<TestDB>();
    buffer.add(
      'rb_array',
      Array.from({ length: 40_000 }, (_, i) => ({ id: 100 + i, tags: [`t${i}`] })),
    );
    await db.transaction().execute((trx) => flush(trx, buffer));
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM rb_array WHERE id >= 100`.execute(
      database.db,
    );
    expect(rows[0].n).toBe(40_000);
  });

  it('a flush runs as a named prepared statement: flushes of the same shape reuse it on their connection', async () => {
    await sql`CREATE TABLE rb_prep (id bigint PRIMARY KEY, tags text[] NOT NULL)`.execute(database.db);
    await db.transaction().execute(async (trx) => {
      for (const id of [900_001, 900_002, 900_003]) {
        const buffer = new RowBuffer<TestDB>();
        buffer.add('rb_prep', [{ id, tags: [`p${id}`] }]);
        await flush(trx, buffer);
      }
      const { rows } = await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(trx);
      expect(rows.filter((r) => r.statement.includes('INSERT INTO "rb_prep" ("id", "tags")'))).toHaveLength(1);
    });
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM rb_prep`.execute(database.db);
    expect(rows[0].n).toBe(3);
  });

  it('keyed updates: one statement per column set; a compare-and-set that no longer matches fails the flush; touches() names pending keys', async () => {
    await sql`CREATE TABLE rb_keyed (k text PRIMARY KEY, v bigint NOT NULL, meta jsonb, note text)`.execute(
      database.db,
    );
    await sql`INSERT INTO rb_keyed VALUES ('a', 0, NULL, NULL), ('b', 5, NULL, NULL)`.execute(database.db);
    const buffer = new RowBuffer<TestDB>();
    buffer.add('rb_keyed', [{ k: 'c', v: 1 }], 'k');
    buffer.update({
      table: 'rb_keyed',
      key: { column: 'k', value: 'a' },
      set: { v: 1, meta: { x: 1 } },
      expect: { column: 'v', value: 0 },
    });
    buffer.update({ table: 'rb_keyed', key: { column: 'k', value: 'b' }, set: { note: null } });
    buffer.update({ table: 'rb_keyed', key: { column: 'k', value: 'missing' }, set: { note: 'ignored' } });
    expect([buffer.touches('rb_keyed', 'a'), buffer.touches('rb_keyed', 'c'), buffer.touches('rb_keyed', 'z')]).toEqual(
      [true, true, false],
    );
    await db.transaction().execute((trx) => flush(trx, buffer));
    expect(buffer.touches('rb_keyed', 'a')).toBe(false);
    const { rows } = await sql<Record<string, unknown>>`SELECT * FROM rb_keyed ORDER BY k`.execute(database.db);
    expect(rows).toEqual([
      { k: 'a', v: 1, meta: { x: 1 }, note: null },
      { k: 'b', v: 5, meta: null, note: null },
      { k: 'c', v: 1, meta: null, note: null },
    ]);
    buffer.update({
      table: 'rb_keyed',
      key: { column: 'k', value: 'a' },
      set: { v: 2 },
      expect: { column: 'v', value: 0 },
    });
    await expect(db.transaction().execute((trx) => flush(trx, buffer))).rejects.toThrow(/expected 1/);
    const after = await sql<{ v: number }>`SELECT v FROM rb_keyed WHERE k = 'a'`.execute(database.db);
    expect(after.rows[0].v).toBe(1);
  });

  it('keyed updates look their keys up by index, not by scanning the table', async () => {
    await sql`CREATE TABLE rb_scan (k text PRIMARY KEY, v bigint NOT NULL, meta jsonb, note text)`.execute(database.db);
    await sql`INSERT INTO rb_scan SELECT 'k' || g, g, NULL, NULL FROM generate_series(1, 20000) g`.execute(database.db);
    await sql`ANALYZE rb_scan`.execute(database.db);
    const buffer = new RowBuffer<TestDB>();
    buffer.update({ table: 'rb_scan' as 'rb_keyed', key: { column: 'k', value: 'k7' }, set: { v: 1 } });
    const statement = buildWriteStatement(buffer.take(), { ...COLUMNS, rb_scan: COLUMNS.rb_keyed })!;
    const { rows } = await database.pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${statement.text}`, statement.values);
    const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).toMatch(/Index Scan using rb_scan_pkey/);
    expect(plan).not.toMatch(/Seq Scan on rb_scan/);
  });

  it('the last statement, then COMMIT, on a WriteConnection: commits once; a compare-and-set that fails leaves nothing committed', async () => {
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
    const rows = async () =>
      (await sql<Record<string, unknown>>`SELECT * FROM rb_commit ORDER BY k`.execute(database.db)).rows;
    const writeAndCommit = async (buffer: RowBuffer<TestDB>) => {
      const statement = buildWriteStatement(buffer.take(), COLUMNS)!;
      const connection = await WriteConnection.open(database.pool);
      const events: string[] = [];
      try {
        await connection.begin('SELECT 1', []);
        await connection.query(statement.text, statement.values);
        events.push('written');
        await connection.commit();
        events.push('committed');
      } finally {
        await connection.release();
      }
      return events;
    };

    const ok = new RowBuffer<TestDB>();
    ok.add('rb_commit', [{ k: 'b', v: 1 }], 'k');
    ok.update({
      table: 'rb_commit',
      key: { column: 'k', value: 'a' },
      set: { v: 1 },
      expect: { column: 'v', value: 0 },
    });
    expect(await writeAndCommit(ok)).toEqual(['written', 'committed']);
    expect(await rows()).toEqual([
      { k: 'a', v: 1 },
      { k: 'b', v: 1 },
    ]);

    const stale = new RowBuffer<TestDB>();
    stale.add('rb_commit', [{ k: 'c', v: 9 }], 'k');
    stale.update({
      table: 'rb_commit',
      key: { column: 'k', value: 'a' },
      set: { v: 2 },
      expect: { column: 'v', value: 0 },
    });
    await expect(writeAndCommit(stale)).rejects.toThrow(/projection write w1 changed 0 rows, expected 1/);
    expect(await rows()).toEqual([
      { k: 'a', v: 1 },
      { k: 'b', v: 1 },
    ]);
    // The connections are clean afterwards: plain transactions on the pool commit normally.
    for (let i = 0; i < 5; i++)
      await database.db.transaction().execute((trx) => sql`INSERT INTO rb_commit VALUES (${`d${i}`}, 4)`.execute(trx));
    expect((await sql<{ n: number }>`SELECT count(*)::int AS n FROM rb_commit`.execute(database.db)).rows[0].n).toBe(7);
    expect(notices.filter((m) => /no transaction in progress/.test(m))).toEqual([]);
  });

  it("SameAs: a json column repeating another table's row of the same flush is taken from its RETURNING (the text is sent once); otherwise the text is written", async () => {
    await sql`CREATE TABLE rb_src (seq bigint PRIMARY KEY, data jsonb NOT NULL, note text)`.execute(database.db);
    await sql`CREATE TABLE rb_copy (id bigint PRIMARY KEY, seq bigint NOT NULL, payload jsonb NOT NULL)`.execute(
      database.db,
    );
    const pool = new Pool({ connectionString: database.url, max: 1 });
    const statements: Array<{ text: string; params: readonly unknown[] }> = [];
    const logged = new Kysely<TestDB>({
      dialect: new PostgresDialect({ pool }),
      log: (e) => void (e.level === 'query' && statements.push({ text: e.query.sql, params: e.query.parameters })),
    });
    const sent = (marker: string) =>
      statements.flatMap((s) => s.params).filter((p) => typeof p === 'string' && p.includes(marker)).length;
    const doc = (i: number) =>
      JSON.stringify({ marker: `m-${i}`, nested: { q: 'a "quoted" \\ value', n: [i, -i, 1.5] } });
    const flush = async (buffer: RowBuffer<TestDB>) => {
      statements.length = 0;
      await logged.transaction().execute((trx) => writeBuffered(trx, buffer, COLUMNS));
    };
    try {
      // 1. Both in one flush: the copies come from the source rows; each text is in the parameters once.
      const together = new RowBuffer<TestDB>();
      together.add(
        'rb_src',
        [1, 2, 3].map((i) => ({ seq: i, data: doc(i), note: null })),
      );
      together.add(
        'rb_copy',
        [1, 2, 3].map((i) => ({ id: 10 + i, seq: i, payload: new SameAs(doc(i), 'rb_src', 'seq', i, 'data') })),
      );
      await flush(together);
      expect(statements.some((s) => /JOIN \(SELECT "seq" AS k, "data" AS v FROM "w0"\)/.test(s.text))).toBe(true);
      expect([1, 2, 3].map((i) => sent(`m-${i}`))).toEqual([1, 1, 1]);

      // 2. The source row was written by an earlier statement: the text is written as it is.
      const later = new RowBuffer<TestDB>();
      later.add('rb_copy', [{ id: 14, seq: 1, payload: new SameAs(doc(4), 'rb_src', 'seq', 1, 'data') }]);
      await flush(later);
      expect(sent('m-4')).toBe(1);
      expect(statements.some((s) => s.text.includes('JOIN (SELECT'))).toBe(false);

      // 3. One row of the group lacks its source in the flush: the whole group is written from the texts.
      const mixed = new RowBuffer<TestDB>();
      mixed.add('rb_src', [{ seq: 5, data: doc(5), note: 'x' }]);
      mixed.add('rb_copy', [
        { id: 15, seq: 5, payload: new SameAs(doc(5), 'rb_src', 'seq', 5, 'data') },
        { id: 16, seq: 6, payload: new SameAs(doc(6), 'rb_src', 'seq', 6, 'data') },
      ]);
      await flush(mixed);
      expect([sent('m-5'), sent('m-6')]).toEqual([2, 1]);

      const copies = await sql<{ id: number; same: boolean; payload: unknown }>`
        SELECT c.id::int AS id, c.payload = s.data AS same, c.payload FROM rb_copy c LEFT JOIN rb_src s USING (seq) WHERE c.id <= 16 ORDER BY c.id`.execute(
        database.db,
      );
      expect(copies.rows.map((r) => [r.id, r.payload])).toEqual(
        [11, 12, 13, 14, 15, 16].map((id) => [id, JSON.parse(doc(id > 13 ? id - 10 : id - 10))]),
      );
      expect(copies.rows.filter((r) => r.id !== 14 && r.id !== 16).every((r) => r.same)).toBe(true);

      // 4. A part of the source value (path): extracted from it in the statement, or made from the text function.
      let made = 0;
      const part = (seq: number, path: string[], value: unknown) =>
        new SameAs(() => (made++, JSON.stringify(value)), 'rb_src', 'seq', seq, 'data', path);
      const withPath = new RowBuffer<TestDB>();
      withPath.add('rb_src', [{ seq: 7, data: doc(7), note: null }]);
      withPath.add('rb_copy', [
        { id: 17, seq: 7, payload: part(7, ['nested'], JSON.parse(doc(7)).nested) },
        { id: 18, seq: 7, payload: part(7, ['nested', 'n', '1'], -7) },
      ]);
      await flush(withPath);
      expect(made).toBe(0);
      expect(sent('m-7')).toBe(1);
      const fallback = new RowBuffer<TestDB>();
      fallback.add('rb_copy', [{ id: 19, seq: 7, payload: part(7, ['nested'], { written: 'from text' }) }]);
      await flush(fallback);
      expect(made).toBe(1);
      const parts = await sql<{ payload: unknown }>`SELECT payload FROM rb_copy WHERE id >= 17 ORDER BY id`.execute(
        database.db,
      );
      expect(parts.rows.map((r) => r.payload)).toEqual([JSON.parse(doc(7)).nested, -7, { written: 'from text' }]);
    } finally {
      await logged.destroy();
    }
  });
});
