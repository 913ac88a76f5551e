import type { Insertable, Kysely, Updateable } from 'kysely';
import type { CommittedEvent, LedgerEventOf, LedgerEventType } from '@ledgerline/domain';
import type { DB } from '../schema';
import type { JsonColumn } from '../column-types';

/** A table of the service's schema. */
export type Table = keyof DB & string;

/** A column of `T`. */
export type Column<T extends Table> = keyof DB[T] & string;

/**
 * The value of a jsonb column that repeats a column of a row another table inserts in the same write (the event log's
 * `data`, repeated as `ledger_updates.payload`). The batched writer takes the value from the other insert's `RETURNING`
 * inside its statement when that row is written by the same statement, so the text is sent and parsed once; otherwise
 * (the reference writer, a rebuild, the other row written earlier) `text` is written as it is. Either way the stored
 * value is the same.
 */
export class SameAs {
  private textMade?: string;
  private readonly makeText?: () => string;

  constructor(
    /** The JSON text (what is written when the other row is not in the same statement), or a function making it. */
    text: string | (() => string),
    readonly table: string,
    readonly keyColumn: string,
    readonly key: string | number,
    readonly column: string,
    /** A path inside the other row's json value (`#>`): the value repeats that part of it. */
    readonly path?: readonly string[],
  ) {
    if (typeof text === 'string') this.textMade = text;
    else this.makeText = text;
  }

  get text(): string {
    return (this.textMade ??= this.makeText!());
  }
}

/** A row to insert into `T`: the schema's insert types; a jsonb column may take its value from another row (SameAs). */
export type InsertRow<T extends Table> = {
  [C in keyof Insertable<DB[T]>]: C extends JsonColumn<T> ? Insertable<DB[T]>[C] | SameAs : Insertable<DB[T]>[C];
};

/** Rows to insert, table by table. */
export type ProjectionRows = { readonly [T in Table]?: readonly InsertRow<T>[] };

/**
 * A change to one existing row of `T`, found by its key (a missing row is left alone, as a plain UPDATE would). With
 * `expect`, the row must exist and still hold that value in that column (compare-and-set): otherwise the write fails,
 * and with it the transaction.
 */
export type KeyedUpdate<T extends Table = Table> = T extends Table
  ? {
      readonly table: T;
      readonly key: { readonly column: Column<T>; readonly value: string };
      readonly set: Updateable<DB[T]>;
      readonly expect?: { readonly column: Column<T>; readonly value: string | number };
    }
  : never;

/**
 * Where the rows and updates of `rows` projections go: the batched writer buffers them and writes them at the end of the
 * batch; the reference writer writes them at once. A method returns a promise only when it did database work.
 */
export interface ProjectionSink {
  /** Rows to insert; `keyColumn` is the key of a table whose rows updates may change in the same transaction. */
  insert<T extends Table>(table: T, rows: readonly InsertRow<T>[], keyColumn?: Column<T>): Promise<void> | void;
  update(u: KeyedUpdate): Promise<void> | void;
  /** Before an `apply` projection that reads or deletes rows of `rows` projections: they must be in their tables. */
  settle(): Promise<void> | void;
}

/**
 * A projection keeps some tables equal to a fold of the log. It must be a pure function of the events (no clock, no
 * randomness), so that `ledgerctl rebuild-projections` can recreate its tables row for row.
 *
 * It names the event types it handles (`handles`, types of `LedgerEvent`) and its functions receive those events only,
 * narrowed: `LedgerEventOf<T>`, whose `data` is typed by `type`. Declare one with `projection({...})`, which infers `T`
 * from `handles`; the compiler rejects a type the log does not hold and a function that does not accept every event
 * named (see registry.ts for the routing).
 *
 * Two forms:
 * - `apply`: runs its own SQL in the write transaction, immediately. Use it for state that write decisions read back with
 *   plain works (users): a later work of the same batch sees the change.
 * - `rows` (and `updates`): the projection returns the rows to insert, table by table, and the keyed updates of existing
 *   rows; the batched writer buffers them and writes them at the end of the batch (or earlier, before anything reads
 *   them: see writer/batch-runner.ts).
 */
export type Projection<T extends LedgerEventType = LedgerEventType> = ProjectionBase & {
  readonly handles: readonly T[];
} & ProjectionForm<LedgerEventOf<T>>;

/** A projection of every event, whatever its type (`handles: '*'`): it sees the events as the log holds them. */
export type WildcardProjection = ProjectionBase & { readonly handles: '*' } & ProjectionForm<CommittedEvent>;

/**
 * The functions of a projection of events `E`. Function-typed properties (not methods), so that a function is checked
 * against `E` strictly: one that accepts only some of the events named does not compile.
 */
export type ProjectionForm<E> =
  | {
      readonly apply: (db: Kysely<DB>, event: E) => Promise<void>;
      readonly rows?: undefined;
      readonly updates?: undefined;
    }
  | {
      readonly rows: (event: E) => ProjectionRows;
      /** Changes to existing rows (written after the inserts of the same statement). */
      readonly updates?: (event: E) => readonly KeyedUpdate[];
      /** Key column of tables that `rows` inserts into and `updates` changes, so a row is never inserted and updated in one statement. */
      readonly keys?: { readonly [T in Table]?: Column<T> };
      readonly apply?: undefined;
    };

interface ProjectionBase {
  readonly name: string;
  /** The tables this projection owns, emptied before a rebuild, in an order that respects foreign keys. */
  readonly tables: readonly Table[];
  /**
   * An `apply` projection that reads or deletes rows written by `rows` projections (pruning) sets this: those rows are
   * written before it runs, so live writing and a rebuild see the same tables.
   */
  readonly needsBufferedRows?: boolean;
}

/** A projection of the events of the types `handles` names (`T` is inferred from it). */
export function projection<const T extends LedgerEventType>(
  p: ProjectionBase & { readonly handles: readonly T[] } & ProjectionForm<LedgerEventOf<NoInfer<T>>>,
): Projection<T> {
  return p;
}
