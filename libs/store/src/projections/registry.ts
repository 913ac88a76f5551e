import type { Transaction } from 'kysely';
import type { CommittedEvent } from '@ledgerline/domain';
import type { DB } from '../schema';
import type { KeyedUpdate, Row, RowBuffer } from './row-buffer';
import { ledgerUpdatesProjection } from './ledger-updates.projection';
import { usersProjection } from './users.projection';
import { partiesProjection } from './parties.projection';
import { identityProvidersProjection } from './identity-providers.projection';
import { contractsProjection } from './contracts.projection';
import { externalPartiesProjection } from './external-parties.projection';
import { commandDeduplicationProjection } from './command-deduplication.projection';
import { reassignmentsProjection } from './reassignments.projection';
import { ledgerPruningProjection } from './ledger-pruning.projection';

/**
 * A projection keeps some tables equal to a fold of the log. It must be a pure function of the events (no clock, no
 * randomness), so that `ledgerctl rebuild-projections` can recreate its tables row for row.
 *
 * Two forms:
 * - `apply`: runs its own SQL in the write transaction, immediately. Use it for state that write decisions read back
 *   (users, parties, active contracts): a later work of the same batch sees the change.
 * - `rows` (and `updates`): the projection returns the rows to insert, table by table, and the keyed updates of existing
 *   rows; the store buffers them and writes them at the end of the batch, one multi-row statement per table and column
 *   set (far fewer round trips). Decisions that read such a table inside the writer must see the buffered rows: keyed
 *   works (EventStore.decide) load their state only after the buffer has been written, and declare what they read and
 *   write so that no work of a batch segment reads what another one of the same segment changes; plain works run after
 *   the buffer has been written too.
 */
export type Projection = ProjectionBase &
  (
    | { apply(trx: Transaction<DB>, event: CommittedEvent): Promise<void>; rows?: undefined; updates?: undefined }
    | {
        rows(event: CommittedEvent): Record<string, readonly Row[]>;
        /** Changes to existing rows (written after the inserts of the same flush). */
        updates?(event: CommittedEvent): readonly KeyedUpdate[];
        /** Key column of tables that `rows` inserts into and `updates` changes, so a row is never inserted and updated in one statement. */
        keys?: Readonly<Record<string, string>>;
        apply?: undefined;
      }
  );

interface ProjectionBase {
  readonly name: string;
  /** The tables this projection owns, emptied before a rebuild, in an order that respects foreign keys. */
  readonly tables: readonly string[];
  /** Event types it handles; '*' sees every event. */
  readonly handles: readonly string[] | '*';
  /**
   * An `apply` projection that reads or deletes rows written by `rows` projections (pruning) sets this: the rows buffered
   * for earlier events are written before it runs, so live writing and a rebuild see the same tables.
   */
  readonly needsBufferedRows?: boolean;
}

/** Every projection of the service. Add one line per capability. */
export const projections: readonly Projection[] = [
  usersProjection,
  ledgerUpdatesProjection,
  contractsProjection,
  partiesProjection,
  identityProvidersProjection,
  externalPartiesProjection,
  commandDeduplicationProjection,
  reassignmentsProjection,
  ledgerPruningProjection,
];

const byType = new Map<string, Projection[]>();
const wildcard: Projection[] = [];
for (const p of projections) {
  if (p.handles === '*') wildcard.push(p);
  else for (const t of p.handles) byType.set(t, [...(byType.get(t) ?? []), p]);
}

/**
 * Applies every projection of `event`: `apply` ones now, `rows` ones into `buffer` (the caller flushes it; `flush` writes
 * it early for projections that need the buffered rows in place).
 */
export async function applyProjections(
  trx: Transaction<DB>,
  event: CommittedEvent,
  buffer: RowBuffer,
  flush?: () => Promise<void>,
): Promise<void> {
  for (const list of [byType.get(event.type), wildcard]) {
    if (!list) continue;
    for (const p of list) {
      if (p.rows) {
        const out = p.rows(event);
        for (const table in out) {
          const keyColumn = p.keys?.[table];
          if (keyColumn && flush && out[table].some((r) => buffer.touches(table, String(r[keyColumn])))) await flush();
          buffer.add(table, out[table], keyColumn);
        }
        for (const u of p.updates?.(event) ?? []) {
          // One statement must not insert and update a row, or update it twice: write what is pending first.
          if (flush && buffer.touches(u.table, u.key.value)) await flush();
          buffer.update(u);
        }
      } else {
        if (p.needsBufferedRows && !buffer.isEmpty) await flush?.();
        await p.apply(trx, event);
      }
    }
  }
}

export const projectionTables = (): string[] => projections.flatMap((p) => [...p.tables]);
