import { CompiledQuery, type Kysely } from 'kysely';
import type { DB } from '../schema';
import type { ColumnTypeMap } from '../column-types';
import type { Column, InsertRow, KeyedUpdate, ProjectionSink, Table } from '../projections/projection';
import { preparedText } from '../prepared-statements';
import type { BufferRow, BufferUpdate, RowBuffer } from './row-buffer';
import { buildWriteStatement } from './statement-builder';

/**
 * Projection output into a RowBuffer, written later in one statement. Before a row would be inserted and updated (or
 * updated twice) by one statement, and before an `apply` projection that needs them, the buffered rows are written
 * (`writeNow`).
 */
export class BufferedSink implements ProjectionSink {
  constructor(
    readonly buffer: RowBuffer<DB>,
    private readonly writeNow: () => Promise<void>,
  ) {}

  insert<T extends Table>(table: T, rows: readonly InsertRow<T>[], keyColumn?: Column<T>): Promise<void> | void {
    const buffered = rows as unknown as readonly BufferRow<DB, T>[];
    if (keyColumn && this.buffer.touchesAny(table, rows, keyColumn))
      return this.writeNow().then(() => this.buffer.add(table, buffered, keyColumn));
    this.buffer.add(table, buffered, keyColumn);
  }

  update(u: KeyedUpdate): Promise<void> | void {
    const buffered = u as BufferUpdate<DB>;
    if (this.buffer.touches(u.table, u.key.value)) return this.writeNow().then(() => this.buffer.update(buffered));
    this.buffer.update(buffered);
  }

  settle(): Promise<void> | void {
    if (!this.buffer.isEmpty) return this.writeNow();
  }
}

/** Writes what `buffer` holds with one statement on `db` (an open transaction) through Kysely; empties the buffer. */
export async function writeBuffered<D>(
  db: Kysely<NoInfer<D>>,
  buffer: RowBuffer<D>,
  columns: ColumnTypeMap<NoInfer<D>>,
): Promise<void> {
  const statement = buildWriteStatement(buffer.take(), columns);
  if (statement) await db.executeQuery(CompiledQuery.raw(preparedText(statement.text), statement.values));
}
