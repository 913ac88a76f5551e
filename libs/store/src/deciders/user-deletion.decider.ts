import type { Kysely } from 'kysely';
import { decideDeleteUser, requireUserInCallerIdentityProvider, type Claims, type UserState } from '@ledgerline/domain';
import type { DB } from '../schema';
import { changes, decision, type Decider } from '../writer';
import { keyByKey } from './key-by-key';
import { repositories } from './repositories';

export interface DeleteUser {
  claims: Claims;
  userId: string;
}

const users = repositories.users;

/** DELETE /v2/users/{user-id}: the user must be in the caller's identity provider, then `decideDeleteUser`. */
export const userDeletionDecider: Decider<DeleteUser, { userId: string }, UserState, void> = {
  name: 'user-deletion',
  key: ({ userId }) => ({ userId }),
  conflicts: { userId: changes('user') },
  load: (db: Kysely<DB>, keys) => keyByKey(keys, (k) => users.state(db, k.userId)),
  decide(state, { claims, userId }) {
    requireUserInCallerIdentityProvider(claims, state.user?.identityProviderId);
    return decision(decideDeleteUser(state, userId), undefined);
  },
};
