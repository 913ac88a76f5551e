import type { Kysely } from 'kysely';
import type { ExternalPartySigningKey, KeyFormatName, SigningKeySpecName } from '@ledgerline/domain';
import type { DB } from '../schema';

export interface PartySigningKeyRow {
  fingerprint: string;
  keySpec: string;
  keyFormat: string;
  /** base64 */
  publicKey: string;
}

export interface ExternalPartyKeys {
  partyId: string;
  threshold: number;
  keys: ExternalPartySigningKey[];
}

/**
 * The signing keys and thresholds of external parties (`party_signing_keys` / `party_signing_thresholds`, filled by
 * external-party allocation): what executing an interactive submission verifies signatures against, and what the JWKS
 * endpoint and the topology generation read.
 */
export class PartySigningKeysRepository {
  /** Registered keys and threshold per party (parties without keys are absent). */
  async signingKeys(
    db: Kysely<DB>,
    parties: readonly string[],
  ): Promise<Map<string, { threshold: number; keys: PartySigningKeyRow[] }>> {
    const out = new Map<string, { threshold: number; keys: PartySigningKeyRow[] }>();
    if (parties.length === 0) return out;
    const rows = await db
      .selectFrom('party_signing_keys as k')
      .leftJoin('party_signing_thresholds as t', 't.party_id', 'k.party_id')
      .select(['k.party_id', 'k.fingerprint', 'k.key_spec', 'k.key_format', 'k.public_key', 't.threshold'])
      .where('k.party_id', 'in', parties as string[])
      .orderBy('k.party_id')
      .orderBy('k.fingerprint')
      .execute();
    for (const r of rows) {
      const entry = out.get(r.party_id) ?? { threshold: r.threshold ?? 1, keys: [] };
      entry.keys.push({
        fingerprint: r.fingerprint,
        keySpec: r.key_spec,
        keyFormat: r.key_format,
        publicKey: r.public_key,
      });
      out.set(r.party_id, entry);
    }
    return out;
  }
  /** The registered keys and threshold of an external party, or null if the party is not external (or unknown). */
  async keysOf(db: Kysely<DB>, partyId: string): Promise<ExternalPartyKeys | null> {
    const t = await db
      .selectFrom('party_signing_thresholds')
      .select('threshold')
      .where('party_id', '=', partyId)
      .executeTakeFirst();
    if (!t) return null;
    const rows = await db
      .selectFrom('party_signing_keys')
      .selectAll()
      .where('party_id', '=', partyId)
      .orderBy('fingerprint')
      .execute();
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
    const there = await db
      .selectFrom('party_details')
      .select('party')
      .where('party', '=', partyId)
      .where('synchronizer_id', '=', synchronizerId)
      .executeTakeFirst();
    return there ? this.keysOf(db, partyId) : null;
  }

  /** Which of `parties` are external parties of this ledger. */
  async externalAmong(db: Kysely<DB>, parties: readonly string[]): Promise<Set<string>> {
    if (parties.length === 0) return new Set();
    const rows = await db
      .selectFrom('party_signing_thresholds')
      .select('party_id')
      .where('party_id', 'in', [...new Set(parties)])
      .execute();
    return new Set(rows.map((r) => r.party_id));
  }
}
