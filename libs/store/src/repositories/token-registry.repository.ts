import { sql, type Kysely } from 'kysely';
import type { RegistryContract, StoredCreatedEvent } from '@ledgerline/domain';
import type { DB } from '../schema';

/**
 * The token registry's reads of the `contracts` projection (migration 0003): active contracts of given templates that
 * a party (the instrument admin) is a stakeholder of, with the created event (and its blob, which the registry hands
 * out as disclosed contracts) and the synchronizer each is assigned to. Contracts being reassigned are not active here.
 */
export class TokenRegistryRepository {
  /** The active contracts of these templates (`<package id>:<Module>:<Entity>`) with `party` among their stakeholders (any party: null). */
  async active(db: Kysely<DB>, templateIds: readonly string[], party: string | null): Promise<RegistryContract[]> {
    if (templateIds.length === 0) return [];
    const { rows } = await sql<{ created_event: StoredCreatedEvent; synchronizer_id: string }>`
      SELECT created_event, synchronizer_id FROM contracts
      WHERE status = 'active' AND template_id = ANY(${[...templateIds]}::text[])
        AND (${party}::text IS NULL OR ${party}::text = ANY(stakeholders))
      ORDER BY created_offset, contract_id`.execute(db);
    return rows.map((r) => ({ createdEvent: r.created_event, synchronizerId: r.synchronizer_id }));
  }

  /** The active contract with this id if it is of one of these templates and `party` is among its stakeholders, else null. */
  async activeById(
    db: Kysely<DB>,
    contractId: string,
    templateIds: readonly string[],
    party: string,
  ): Promise<RegistryContract | null> {
    if (templateIds.length === 0) return null;
    const { rows } = await sql<{ created_event: StoredCreatedEvent; synchronizer_id: string }>`
      SELECT created_event, synchronizer_id FROM contracts
      WHERE contract_id = ${contractId} AND status = 'active' AND template_id = ANY(${[...templateIds]}::text[]) AND ${party}::text = ANY(stakeholders)`.execute(
      db,
    );
    const r = rows[0];
    return r ? { createdEvent: r.created_event, synchronizerId: r.synchronizer_id } : null;
  }

  /** Whether the contract with this id is between an unassignment and its assignment (on no synchronizer). */
  async inFlight(db: Kysely<DB>, contractId: string): Promise<boolean> {
    const { rows } = await sql<{
      n: number;
    }>`SELECT 1 AS n FROM contracts WHERE contract_id = ${contractId} AND status = 'in_flight'`.execute(db);
    return rows.length > 0;
  }
}
