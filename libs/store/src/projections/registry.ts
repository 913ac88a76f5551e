import type { Transaction } from 'kysely';
import type { CommittedEvent } from '@ledgerline/domain';
import type { DB } from '../schema';
import { ledgerUpdatesProjection } from './ledger-updates.projection';
import { usersProjection } from './users.projection';
import { contractsProjection } from './contracts.projection';
import { ledgerPruningProjection } from './ledger-pruning.projection';

/**
 * A projection keeps some tables equal to a fold of the log. It must be a pure function of the events (no clock, no
 * randomness), so that `ledgerctl rebuild-projections` can recreate its tables row for row.
 */
export interface Projection {
  readonly name: string;
  /** The tables this projection owns, emptied before a rebuild, in an order that respects foreign keys. */
  readonly tables: readonly string[];
  /** Event types it handles; '*' sees every event. */
  readonly handles: readonly string[] | '*';
  apply(trx: Transaction<DB>, event: CommittedEvent): Promise<void>;
}

/** Every projection of the service. Add one line per capability. */
export const projections: readonly Projection[] = [
  usersProjection,
  ledgerUpdatesProjection,
  contractsProjection,
  ledgerPruningProjection,
];

const byType = new Map<string, Projection[]>();
const wildcard: Projection[] = [];
for (const p of projections) {
  if (p.handles === '*') wildcard.push(p);
  else for (const t of p.handles) byType.set(t, [...(byType.get(t) ?? []), p]);
}

export async function applyProjections(trx: Transaction<DB>, event: CommittedEvent): Promise<void> {
  for (const p of byType.get(event.type) ?? []) await p.apply(trx, event);
  for (const p of wildcard) await p.apply(trx, event);
}

export const projectionTables = (): string[] => projections.flatMap((p) => [...p.tables]);
