import type { Insertable, Updateable } from 'kysely';
import type { DB } from '../schema';
import type { SameAs } from '../projections/projection';

/** A table name of the schema `D`. */
export type TableOf<D> = keyof D & string;

/** A buffered row of table `T` of `D` (any column may repeat another row's value: SameAs). */
export type BufferRow<D, T extends TableOf<D>> = { [C in keyof Insertable<D[T]>]: Insertable<D[T]>[C] | SameAs };

/** A buffered keyed update of a row of `D` (see projections/projection.ts KeyedUpdate). */
export type BufferUpdate<D> = {
  [T in TableOf<D>]: {
    readonly table: T;
    readonly key: { readonly column: keyof D[T] & string; readonly value: string };
    readonly set: Updateable<D[T]>;
    readonly expect?: { readonly column: keyof D[T] & string; readonly value: string | number };
  };
}[TableOf<D>];

/** The statement builder's view of a row: column → value (the typed rows above, once buffered). */
export type AnyRow = Readonly<Record<string, unknown>>;

/** The statement builder's view of an update. */
export interface AnyUpdate {
  readonly table: string;
  readonly key: { readonly column: string; readonly value: string };
  readonly set: AnyRow;
  readonly expect?: { readonly column: string; readonly value: unknown };
}

/** What a buffer held when it was taken: rows per table, and updates grouped by table and column set. */
export interface BufferedWrites {
  readonly tables: ReadonlyArray<readonly [string, readonly AnyRow[]]>;
  readonly updates: ReadonlyArray<readonly AnyUpdate[]>;
}

/**
 * Rows and keyed updates collected during a transaction, to be written later in one statement (statement-builder.ts).
 * All parts of one statement see the same snapshot, so one statement must not insert and update a row, or update it
 * twice: `touches` tells whether a key is already pending (for updates, and for rows added with their key column), and
 * the caller writes the buffer first.
 */
export class RowBuffer<D = DB> {
  private readonly tables = new Map<string, AnyRow[]>();
  private readonly updates = new Map<string, AnyUpdate[]>();
  private readonly pendingKeys = new Set<string>();

  add<T extends TableOf<D>>(table: T, rows: readonly BufferRow<D, T>[], keyColumn?: keyof D[T] & string): void {
    if (rows.length === 0) return;
    let list = this.tables.get(table);
    if (!list) this.tables.set(table, (list = []));
    for (const r of rows as readonly AnyRow[]) {
      list.push(r);
      if (keyColumn) this.pendingKeys.add(`${table}\u0000${String(r[keyColumn])}`);
    }
  }

  update(update: BufferUpdate<D>): void {
    const u = update as AnyUpdate;
    const group = [u.table, u.key.column, u.expect?.column ?? '', ...Object.keys(u.set)].join('\u0000');
    let list = this.updates.get(group);
    if (!list) this.updates.set(group, (list = []));
    list.push(u);
    this.pendingKeys.add(`${u.table}\u0000${u.key.value}`);
  }

  /** Whether a row of `table` with this key is already inserted or updated by the buffer. */
  touches(table: string, key: string): boolean {
    return this.pendingKeys.has(`${table}\u0000${key}`);
  }

  /** Whether any of `rows` (of a table keyed by `keyColumn`) is already pending. */
  touchesAny(table: string, rows: readonly object[], keyColumn: string): boolean {
    return rows.some((r) => this.touches(table, String((r as AnyRow)[keyColumn])));
  }

  /** Whether rows that decisions may read (rows of keyed tables, updates) are pending. */
  get hasStateRows(): boolean {
    return this.pendingKeys.size > 0;
  }

  get isEmpty(): boolean {
    return this.tables.size === 0 && this.updates.size === 0;
  }

  /** Everything buffered; the buffer is empty afterwards. */
  take(): BufferedWrites {
    const taken: BufferedWrites = { tables: [...this.tables], updates: [...this.updates.values()] };
    this.tables.clear();
    this.updates.clear();
    this.pendingKeys.clear();
    return taken;
  }
}
