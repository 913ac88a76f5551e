import type { Kysely } from 'kysely';
import type { DB } from '../schema';

export interface PartySigningKeyRow {
  fingerprint: string;
  keySpec: string;
  keyFormat: string;
  /** base64 */
  publicKey: string;
}

/**
 * Reads for interactive-submission execution outside the writer: the parties' registered signing keys
 * (`party_signing_keys` / `party_signing_thresholds`, filled by external-party allocation). The writer's reads (the
 * change's last completion in `command_deduplication`, the stored state of contracts) are `executeSubmissionDecider`'s.
 */
export class ExecuteSubmissionRepository {
  /** Registered keys and threshold per party (parties without keys are absent). */
  async signingKeys(db: Kysely<DB>, parties: readonly string[]): Promise<Map<string, { threshold: number; keys: PartySigningKeyRow[] }>> {
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
      entry.keys.push({ fingerprint: r.fingerprint, keySpec: r.key_spec, keyFormat: r.key_format, publicKey: r.public_key });
      out.set(r.party_id, entry);
    }
    return out;
  }
}
