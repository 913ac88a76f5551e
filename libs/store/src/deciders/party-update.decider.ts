import type { Kysely } from 'kysely';
import {
  decideUpdatePartyDetails,
  type PartyRecord,
  type PartyUpdateState,
  type ValidatedPartyUpdate,
} from '@ledgerline/domain';
import type { DB } from '../schema';
import { changes, decision, reads, type Decider } from '../writer';
import { partyRecordOf, type PartyRow } from '../repositories/parties.repository';
import { loadObjectMetaState } from './object-meta-state';

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
    const states = await loadObjectMetaState<PartyRow>(
      db,
      'party_details',
      'party',
      keys.map((k) => ({ id: k.party, identityProviderId: k.identityProviderId })),
    );
    return states.map((s) => ({
      record: s.row ? partyRecordOf(s.row) : null,
      identityProviderExists: s.identityProviderExists,
    }));
  },
  decide(state, request) {
    const { events, record } = decideUpdatePartyDetails(state, request);
    return decision(events, record);
  },
};
