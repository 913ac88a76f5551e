import type { Kysely } from 'kysely';
import {
  decideAllocateExternalParty,
  type ExternalPartyAllocationOptions,
  type ExternalPartyState,
  type HostingContext,
  type VerifiedAllocation,
} from '@ledgerline/domain';
import type { DB } from '../schema';
import { changes, decision, reads, type Decider } from '../writer';
import { keyByKey } from './key-by-key';
import { repositories } from './repositories';
import type { PartyAllocationKey } from './party-allocation.decider';

/** An external party whose onboarding transaction and signatures have been verified. */
export interface AllocateExternalParty {
  verified: VerifiedAllocation;
  hosting: HostingContext;
  options: ExternalPartyAllocationOptions;
}

const parties = repositories.parties;
const idps = repositories.identityProviders;
const users = repositories.users;

/**
 * POST /v2/parties/external/allocate, after verification: whether the party exists, the identity provider and the user,
 * then `decideAllocateExternalParty`. The answer: the party id.
 */
export const externalPartyAllocationDecider: Decider<
  AllocateExternalParty,
  PartyAllocationKey,
  ExternalPartyState,
  string
> = {
  name: 'external-party-allocation',
  key: ({ verified, options }) => ({
    party: verified.partyId,
    identityProviderId: options.identityProviderId,
    userId: options.userId,
  }),
  conflicts: {
    party: changes('party'),
    identityProviderId: reads('idp'),
    userId: changes('user', (id: string) => id || []),
  },
  load: (db: Kysely<DB>, keys) =>
    keyByKey(keys, async (k) => ({
      partyExists: (await parties.get(db, k.party)) !== null,
      identityProviderExists: await idps.exists(db, k.identityProviderId),
      user: k.userId ? await users.state(db, k.userId) : null,
    })),
  decide: (state, { verified, hosting, options }) =>
    decision(decideAllocateExternalParty(state, verified, hosting, options), verified.partyId),
};
