import type { Kysely } from 'kysely';
import type { DB, PartySigningKeyRow } from '@ledgerline/store';

/**
 * Registers a party's signing keys directly in `party_signing_keys` / `party_signing_thresholds`, bypassing onboarding.
 * For tests and benchmarks only (the service fills these tables through external-party allocation); the rows are not in
 * the event log, so a projection rebuild that owns these tables would drop them.
 */
export async function seedPartySigningKeys(
  db: Kysely<DB>,
  party: string,
  keys: PartySigningKeyRow[],
  threshold = 1,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('party_signing_keys').where('party_id', '=', party).execute();
    await trx
      .insertInto('party_signing_keys')
      .values(
        keys.map((k) => ({
          party_id: party,
          fingerprint: k.fingerprint,
          key_spec: k.keySpec,
          key_format: k.keyFormat,
          public_key: k.publicKey,
        })),
      )
      .execute();
    await trx
      .insertInto('party_signing_thresholds')
      .values({ party_id: party, threshold })
      .onConflict((oc) => oc.column('party_id').doUpdateSet({ threshold }))
      .execute();
  });
}
