import { EXTERNAL_PARTY_ALLOCATED } from '@ledgerline/domain';
import { projection } from './projection';

/** Signing keys and thresholds of external parties (migration 0006), from 'ExternalPartyAllocated'. */
export const externalPartiesProjection = projection({
  name: 'external-parties',
  tables: ['party_signing_keys', 'party_signing_thresholds'],
  handles: [EXTERNAL_PARTY_ALLOCATED],
  async apply(trx, event) {
    const d = event.data;
    await trx
      .insertInto('party_signing_keys')
      .values(
        d.keys.map((k) => ({
          party_id: d.partyId,
          fingerprint: k.fingerprint,
          key_spec: k.keySpec,
          key_format: k.keyFormat,
          public_key: k.publicKey,
        })),
      )
      .execute();
    await trx.insertInto('party_signing_thresholds').values({ party_id: d.partyId, threshold: d.threshold }).execute();
  },
});
