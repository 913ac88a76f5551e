import { sql, type Kysely } from 'kysely';
import type { StoredCreatedEvent } from '@ledgerline/domain';
import type { DB } from '../schema';

export interface ActiveContract {
  createdEvent: StoredCreatedEvent;
  synchronizerId: string | null;
}

/**
 * Reads of the contracts projection for the Canton Coin profile: the active contracts of some templates of one package
 * name (by qualified name `Module:Entity`, whatever the package version), optionally only those whose create argument
 * has a top-level party field equal to a value (`dso`, `provider`, `receiver`). What Splice's Scan serves is public
 * network state, so these reads do not filter by a reader's parties.
 */
export class CantonCoinRepository {
  async activeContracts(
    db: Kysely<DB>,
    packageName: string,
    qualifiedNames: readonly string[],
    where?: { field: string; value: string },
    limit = 10_000,
  ): Promise<ActiveContract[]> {
    if (qualifiedNames.length === 0) return [];
    const filter =
      where === undefined ? sql`` : sql`AND created_event -> 'createArgument' ->> ${where.field} = ${where.value}`;
    const { rows } = await sql<{ created_event: StoredCreatedEvent; synchronizer_id: string | null }>`
      SELECT created_event, synchronizer_id FROM contracts
      WHERE status = 'active' AND package_name = ${packageName}
        AND substring(template_id from position(':' in template_id) + 1) = ANY (${[...qualifiedNames]}::text[])
        ${filter}
      ORDER BY created_offset, contract_id
      LIMIT ${limit}`.execute(db);
    return rows.map((r) => ({ createdEvent: r.created_event, synchronizerId: r.synchronizer_id }));
  }
}
