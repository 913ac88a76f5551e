import type { Kysely } from 'kysely';
import type { CommittedEvent } from '@ledgerline/domain';
import type { DB } from '../schema';
import type { Column, InsertRow, Projection, ProjectionSink, Table } from './projection';
import { ledgerUpdatesProjection } from './ledger-updates.projection';
import { usersProjection } from './users.projection';
import { partiesProjection } from './parties.projection';
import { identityProvidersProjection } from './identity-providers.projection';
import { contractsProjection } from './contracts.projection';
import { externalPartiesProjection } from './external-parties.projection';
import { commandDeduplicationProjection } from './command-deduplication.projection';
import { commandCompletionsProjection } from './command-completions.projection';
import { reassignmentsProjection } from './reassignments.projection';
import { ledgerPruningProjection } from './ledger-pruning.projection';
import { packagesProjection } from './packages.projection';

/** Every projection of the service. Add one line per capability. */
export const projections: readonly Projection[] = [
  usersProjection,
  ledgerUpdatesProjection,
  contractsProjection,
  partiesProjection,
  identityProvidersProjection,
  externalPartiesProjection,
  commandDeduplicationProjection,
  commandCompletionsProjection,
  reassignmentsProjection,
  ledgerPruningProjection,
  packagesProjection,
];

const byType = new Map<string, Projection[]>();
const wildcard: Projection[] = [];
for (const p of projections) {
  if (p.handles === '*') wildcard.push(p);
  else for (const t of p.handles) byType.set(t, [...(byType.get(t) ?? []), p]);
}

/** Applies every projection of `event`: `apply` ones now on `db`, the rows and updates of `rows` ones into `sink`. */
export async function applyProjections(db: Kysely<DB>, event: CommittedEvent, sink: ProjectionSink): Promise<void> {
  for (const list of [byType.get(event.type), wildcard]) {
    if (!list) continue;
    for (const p of list) {
      if (p.rows) {
        const out = p.rows(event);
        for (const table in out) {
          const pending = insertRows(sink, table as Table, out, p.keys);
          if (pending) await pending;
        }
        if (p.updates) {
          for (const u of p.updates(event)) {
            const pending = sink.update(u);
            if (pending) await pending;
          }
        }
      } else {
        if (p.needsBufferedRows) {
          const pending = sink.settle();
          if (pending) await pending;
        }
        await p.apply(db, event);
      }
    }
  }
}

function insertRows<T extends Table>(
  sink: ProjectionSink,
  table: T,
  rows: { readonly [U in Table]?: readonly InsertRow<U>[] },
  keys: { readonly [U in Table]?: Column<U> } | undefined,
): Promise<void> | void {
  return sink.insert(table, rows[table]!, keys?.[table]);
}

export const projectionTables = (): Table[] => projections.flatMap((p) => [...p.tables]);
