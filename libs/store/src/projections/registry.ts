import type { Transaction } from 'kysely';
import type { CommittedEvent } from '@ledgerline/domain';
import type { DB } from '../schema';
import type { Row, RowBuffer } from './row-buffer';
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
 * - `rows`: an insert-only projection returns the rows to insert, table by table; the store buffers them and writes them
 *   at the end of the batch with one multi-row INSERT per table (far fewer round trips). Only for tables that are
 *   never read nor updated inside a write transaction (read-side tables such as `ledger_updates`), since the rows are
 *   not there until the batch ends.
 */
export type Projection = ProjectionBase &
  (
    | { apply(trx: Transaction<DB>, event: CommittedEvent): Promise<void>; rows?: undefined }
    | { rows(event: CommittedEvent): Record<string, readonly Row[]>; apply?: undefined }
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
        for (const table in out) buffer.add(table, out[table]);
      } else {
        if (p.needsBufferedRows && !buffer.isEmpty) await flush?.();
        await p.apply(trx, event);
      }
    }
  }
}

export const projectionTables = (): string[] => projections.flatMap((p) => [...p.tables]);
