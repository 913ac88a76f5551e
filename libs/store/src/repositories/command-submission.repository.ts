import { sql, type Kysely } from 'kysely';
import type { SubmitterHosting } from '@ledgerline/domain';
import type { DB } from '../schema';
import { prepared } from '../prepared-statements';

/** What routing a command submission reads: parties and how they are hosted. */
export class CommandSubmissionRepository {
  /** The given parties allocated here, each local (may submit) or external (has signing keys: confirms only). */
  async hosting(db: Kysely<DB>, parties: readonly string[]): Promise<Map<string, SubmitterHosting>> {
    if (parties.length === 0) return new Map();
    const { rows } = await prepared(sql<{ party: string; external: boolean }>`
      SELECT p.party, EXISTS (SELECT 1 FROM party_signing_thresholds t WHERE t.party_id = p.party) AS external
      FROM party_details p WHERE p.party = ANY (${[...new Set(parties)]}::text[])`).execute(db);
    return new Map(rows.map((r) => [r.party, r.external ? 'external' : 'local']));
  }
}
