import type { Kysely } from 'kysely';
import type { DB } from '../schema';
import { COLUMN_TYPES } from '../column-types';
import { SameAs, type InsertRow, type KeyedUpdate, type ProjectionSink, type Table } from '../projections/projection';

// Kysely over table and column names known only at run time (the rows are typed by the Projection interfaces).
type Untyped = Kysely<Record<string, Record<string, unknown>>>;

/** Projection output written at once, with plain Kysely statements (the reference writer). */
export class DirectSink implements ProjectionSink {
  private readonly db: Untyped;

  constructor(db: Kysely<DB>) {
    this.db = db as unknown as Untyped;
  }

  async insert<T extends Table>(table: T, rows: readonly InsertRow<T>[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db
      .insertInto(table)
      .values(rows.map((r) => plain(table, r)))
      .execute();
  }

  async update(u: KeyedUpdate): Promise<void> {
    let q = this.db.updateTable(u.table).set(plain(u.table, u.set)).where(u.key.column, '=', u.key.value);
    if (u.expect) q = q.where(u.expect.column, '=', u.expect.value);
    const { numUpdatedRows } = await q.executeTakeFirstOrThrow();
    if (u.expect && numUpdatedRows !== 1n) {
      throw new Error(
        `update of ${u.table} ${u.key.value} changed ${numUpdatedRows} rows, expected 1 (the row was missing or no longer matched)`,
      );
    }
  }

  settle(): void {}
}

/** A row's values as pg sends them: SameAs as its text, jsonb values as JSON text. */
function plain(table: Table, row: object): Record<string, unknown> {
  const types: Readonly<Record<string, string>> = COLUMN_TYPES[table];
  const out: Record<string, unknown> = {};
  for (const [c, v] of Object.entries(row)) {
    out[c] =
      v instanceof SameAs
        ? v.text
        : types[c] === 'jsonb' && v !== null && typeof v !== 'string'
          ? JSON.stringify(v)
          : v;
  }
  return out;
}
