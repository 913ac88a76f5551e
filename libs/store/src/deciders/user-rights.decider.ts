import type { Kysely } from 'kysely';
import {
  decideGrantRights,
  decideRevokeRights,
  requireUserInCallerIdentityProvider,
  verifyPartiesExistInIdentityProvider,
  type Claims,
  type Right,
} from '@ledgerline/domain';
import type { DB } from '../schema';
import { changes, decision, reads, type Decider } from '../writer';
import { keyByKey } from './key-by-key';
import { repositories } from './repositories';
import {
  partiesInProvider,
  partiesToVerify,
  type UserCreationKey,
  type UserCreationState,
} from './user-creation.decider';

/** Rights to grant or revoke (authorized: `identityProviderId` is the one the caller may act in). */
export interface ChangeUserRights {
  kind: 'grant' | 'revoke';
  claims: Claims;
  userId: string;
  rights: Right[];
  identityProviderId: string;
}

const users = repositories.users;
const partyRecords = repositories.parties;

/**
 * POST and PATCH /v2/users/{user-id}/rights: the parties named must be in the caller's identity provider (non-admins),
 * the user in the caller's, then `decideGrantRights` / `decideRevokeRights`. The answer: the rights that changed.
 */
export const userRightsDecider: Decider<ChangeUserRights, UserCreationKey, UserCreationState, Right[]> = {
  name: 'user-rights',
  key: ({ claims, userId, rights }) => ({ userId, parties: partiesToVerify(claims, rights) }),
  conflicts: {
    userId: changes('user'),
    parties: reads('party'),
  },
  load: (db: Kysely<DB>, keys) =>
    keyByKey(keys, async (k) => ({
      user: await users.state(db, k.userId),
      parties: await partyRecords.getMany(db, [...k.parties]),
    })),
  decide(state, { kind, claims, userId, rights, identityProviderId }) {
    verifyPartiesExistInIdentityProvider(
      claims,
      rights,
      identityProviderId,
      partiesInProvider(state.parties, identityProviderId),
    );
    requireUserInCallerIdentityProvider(claims, state.user.user?.identityProviderId);
    if (kind === 'grant') {
      const { events, newlyGranted } = decideGrantRights(state.user, userId, rights);
      return decision(events, newlyGranted);
    }
    const { events, newlyRevoked } = decideRevokeRights(state.user, userId, rights);
    return decision(events, newlyRevoked);
  },
};
