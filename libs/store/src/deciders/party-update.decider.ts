import { sql, type Kysely } from 'kysely';
import { decideUpdatePartyDetails, type PartyRecord, type PartyUpdateState, type ValidatedPartyUpdate } from '@ledgerline/domain';
import type { DB } from '../schema';
import { prepared } from '../prepared-statements';
import { changes, decision, reads, type Decider } from '../writer';
import { partyRecordOf, type PartyRow } from '../repositories/parties.repository';

/** Which party a PATCH changes, and the identity provider it names. */
export interface PartyUpdateKey {
  party: string;
  identityProviderId: string;
}

/**
 * PATCH /v2/parties/{party}: the party's record and whether the named identity provider exists, then
 * `decideUpdatePartyDetails`. The projection's UPDATE re-checks the version in the database (compare-and-increment).
 */
export const partyUpdateDecider: Decider<ValidatedPartyUpdate, PartyUpdateKey, PartyUpdateState, PartyRecord> = {
  name: 'party-update',
  key: (request) => ({ party: request.party, identityProviderId: request.identityProviderId }),
  conflicts: {
    party: changes('party'),
    identityProviderId: reads('idp'),
  },
  async load(db: Kysely<DB>, keys: readonly PartyUpdateKey[]): Promise<PartyUpdateState[]> {
    const { rows } = await prepared(sql<{ record: PartyRow | null; idp_exists: boolean }>`
      SELECT (SELECT to_jsonb(p) FROM party_details p WHERE p.party = k.party) AS record,
             (k.idp = '' OR EXISTS (SELECT 1 FROM identity_providers i WHERE i.id = k.idp)) AS idp_exists
      FROM unnest(${keys.map((k) => k.party)}::text[], ${keys.map((k) => k.identityProviderId)}::text[]) WITH ORDINALITY AS k(party, idp, n)
      ORDER BY k.n`).execute(db);
    return rows.map((r) => ({ record: r.record ? partyRecordOf(r.record) : null, identityProviderExists: r.idp_exists }));
  },
  decide(state, request) {
    const { events, record } = decideUpdatePartyDetails(state, request);
    return decision(events, record);
  },
};
