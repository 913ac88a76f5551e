import { sql, type Kysely } from 'kysely';
import type { StoredContract, StoredCreatedEvent, SubmitterHosting } from '@ledgerline/domain';
import type { DB } from '../schema';
import { prepared } from '../prepared-statements';

/** What building and routing a command submission read: parties and how they are hosted, and the exercised contracts. */
export class CommandSubmissionRepository {
  /** The given parties allocated here, each local (may submit) or external (has signing keys: confirms only). */
  async hosting(db: Kysely<DB>, parties: readonly string[]): Promise<Map<string, SubmitterHosting>> {
    if (parties.length === 0) return new Map();
    const { rows } = await prepared(sql<{ party: string; external: boolean }>`
      SELECT p.party, EXISTS (SELECT 1 FROM party_signing_thresholds t WHERE t.party_id = p.party) AS external
      FROM party_details p WHERE p.party = ANY (${[...new Set(parties)]}::text[])`).execute(db);
    return new Map(rows.map((r) => [r.party, r.external ? 'external' : 'local']));
  }

  /** The contracts with these ids that the ledger knows (any status). */
  async contracts(db: Kysely<DB>, ids: readonly string[]): Promise<Map<string, StoredContract>> {
    if (ids.length === 0) return new Map();
    const rows = await db.selectFrom('contracts').selectAll().where('contract_id', 'in', [...ids]).execute();
    return new Map(
      rows.map((r) => [
        r.contract_id,
        {
          contractId: r.contract_id,
          templateId: r.template_id,
          packageName: r.package_name,
          signatories: r.signatories,
          stakeholders: r.stakeholders,
          status: r.status,
          synchronizerId: r.synchronizer_id,
          createdEvent: r.created_event as StoredCreatedEvent,
        },
      ]),
    );
  }
}
