import type { Kysely } from 'kysely';
import { isEventOf, type CommittedEvent, type LedgerEventOf, type LedgerEventType } from '@ledgerline/domain';
import type { DB } from '../schema';
import type {
  Column,
  InsertRow,
  Projection,
  ProjectionForm,
  ProjectionSink,
  Table,
  WildcardProjection,
} from './projection';
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

/** A projection as the registry runs it: `run` takes any event and hands the projection the ones of its types. */
export interface RegisteredProjection {
  readonly name: string;
  readonly tables: readonly Table[];
  readonly handles: readonly LedgerEventType[] | '*';
  /** Applies the projection to `event`, which must be of a type it handles (else it does nothing). */
  run(db: Kysely<DB>, event: CommittedEvent, sink: ProjectionSink): Promise<void>;
}

/**
 * The registry's form of `p`. The event reaches `p`'s functions narrowed to the types `p` handles (`isEventOf`), which is
 * where the log's untyped rows become typed events.
 */
export function register<T extends LedgerEventType>(p: Projection<T> | WildcardProjection): RegisteredProjection {
  const run = (db: Kysely<DB>, event: CommittedEvent, sink: ProjectionSink): Promise<void> =>
    p.handles === '*'
      ? runForm(p, db, event, sink)
      : isEventOf(event, p.handles)
        ? runForm<LedgerEventOf<T>>(p, db, event, sink)
        : Promise.resolve();
  return { name: p.name, tables: p.tables, handles: p.handles, run };
}

async function runForm<E>(
  p: ProjectionForm<E> & { readonly needsBufferedRows?: boolean },
  db: Kysely<DB>,
  event: E,
  sink: ProjectionSink,
): Promise<void> {
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

/** Every projection of the service. Add one line per capability. */
export const projections: readonly RegisteredProjection[] = [
  register(usersProjection),
  register(ledgerUpdatesProjection),
  register(contractsProjection),
  register(partiesProjection),
  register(identityProvidersProjection),
  register(externalPartiesProjection),
  register(commandDeduplicationProjection),
  register(commandCompletionsProjection),
  register(reassignmentsProjection),
  register(ledgerPruningProjection),
  register(packagesProjection),
];

const byType = new Map<string, RegisteredProjection[]>();
const wildcard: RegisteredProjection[] = [];
for (const p of projections) {
  if (p.handles === '*') wildcard.push(p);
  else for (const t of p.handles) byType.set(t, [...(byType.get(t) ?? []), p]);
}

/** Applies every projection of `event`: `apply` ones now on `db`, the rows and updates of `rows` ones into `sink`. */
export async function applyProjections(db: Kysely<DB>, event: CommittedEvent, sink: ProjectionSink): Promise<void> {
  for (const list of [byType.get(event.type), wildcard]) {
    if (!list) continue;
    for (const p of list) await p.run(db, event, sink);
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
