import type { Kysely } from 'kysely';
import {
  decideAllocateParty,
  localPartyId,
  type AllocatePartyRequest,
  type AllocationState,
  type PartyRecord,
} from '@ledgerline/domain';
import type { DB } from '../schema';
import { changes, decision, reads, type Decider } from '../writer';
import { keyByKey } from './key-by-key';
import { repositories } from './repositories';

/** A local party to allocate (authorized and validated; `partyIdHint` is set), and what the decision knows of the participant. */
export interface AllocateParty {
  request: AllocatePartyRequest;
  participant: Pick<AllocationState, 'connectedSynchronizers' | 'participantId' | 'namespace' | 'selfAllocationQuota'>;
}

/** The party the hint names, the identity provider the request names and the user it grants CanActAs ('' for none). */
export interface PartyAllocationKey {
  party: string;
  identityProviderId: string;
  userId: string;
}

export type PartyAllocationState = Pick<AllocationState, 'existing' | 'identityProviderExists' | 'user'>;

const parties = repositories.parties;
const idps = repositories.identityProviders;
const users = repositories.users;

/** POST /v2/parties: the party's record, the identity provider and the user, then `decideAllocateParty`. */
export const partyAllocationDecider: Decider<AllocateParty, PartyAllocationKey, PartyAllocationState, PartyRecord> = {
  name: 'party-allocation',
  key: ({ request, participant }) => ({
    party: localPartyId(request.partyIdHint, participant.namespace),
    identityProviderId: request.identityProviderId,
    userId: request.userId,
  }),
  conflicts: {
    party: changes('party'),
    identityProviderId: reads('idp'),
    userId: changes('user', (id: string) => id || []),
  },
  load: (db: Kysely<DB>, keys) =>
    keyByKey(keys, async (k) => ({
      existing: await parties.get(db, k.party),
      identityProviderExists: await idps.exists(db, k.identityProviderId),
      user: k.userId ? await users.state(db, k.userId) : null,
    })),
  decide(state, { request, participant }) {
    const { events, record } = decideAllocateParty({ ...state, ...participant }, request);
    return decision(events, record);
  },
};
