import type { Kysely } from 'kysely';
import type { ExternalPartySigningKey, KeyFormatName, SigningKeySpecName } from '@ledgerline/domain';
import type { DB } from '../schema';

export interface ExternalPartyKeys {
  partyId: string;
  threshold: number;
  keys: ExternalPartySigningKey[];
}

/** Reads of the external-parties projection (party_signing_keys / party_signing_thresholds). */
export class ExternalPartiesRepository {
  /** The registered keys and threshold of an external party, or null if the party is not external (or unknown). */
  async keysOf(db: Kysely<DB>, partyId: string): Promise<ExternalPartyKeys | null> {
    const t = await db.selectFrom('party_signing_thresholds').select('threshold').where('party_id', '=', partyId).executeTakeFirst();
    if (!t) return null;
    const rows = await db.selectFrom('party_signing_keys').selectAll().where('party_id', '=', partyId).orderBy('fingerprint').execute();
    return {
      partyId,
      threshold: Number(t.threshold),
      keys: rows.map((r) => ({
        fingerprint: r.fingerprint,
        keySpec: r.key_spec as SigningKeySpecName,
        keyFormat: r.key_format as KeyFormatName,
        publicKey: r.public_key,
      })),
    };
  }

  /** The registered keys of an external party allocated on `synchronizerId`, or null (not external, or not there). */
  async keysOn(db: Kysely<DB>, partyId: string, synchronizerId: string): Promise<ExternalPartyKeys | null> {
    const there = await db.selectFrom('party_details').select('party').where('party', '=', partyId).where('synchronizer_id', '=', synchronizerId).executeTakeFirst();
    return there ? this.keysOf(db, partyId) : null;
  }

  /** Which of `parties` are external parties of this ledger. */
  async externalAmong(db: Kysely<DB>, parties: readonly string[]): Promise<Set<string>> {
    if (parties.length === 0) return new Set();
    const rows = await db.selectFrom('party_signing_thresholds').select('party_id').where('party_id', 'in', [...new Set(parties)]).execute();
    return new Set(rows.map((r) => r.party_id));
  }
}
