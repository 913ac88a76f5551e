import type { Kysely } from 'kysely';
import { decideMoveUserIdentityProvider, type MoveUserState } from '@ledgerline/domain';
import type { DB } from '../schema';
import { changes, decision, reads, type Decider } from '../writer';
import { keyByKey } from './key-by-key';
import { repositories } from './repositories';

/** A user to move from identity provider `source` to `target` (validated). */
export interface MoveUserIdentityProvider {
  userId: string;
  source: string;
  target: string;
}

const users = repositories.users;
const idps = repositories.identityProviders;

/** PATCH /v2/users/{user-id}/identity-provider-id: the user and both providers, then `decideMoveUserIdentityProvider`. */
export const userIdentityProviderDecider: Decider<
  MoveUserIdentityProvider,
  MoveUserIdentityProvider,
  MoveUserState,
  void
> = {
  name: 'user-identity-provider',
  key: ({ userId, source, target }) => ({ userId, source, target }),
  conflicts: {
    userId: changes('user'),
    source: reads('idp'),
    target: reads('idp'),
  },
  load: (db: Kysely<DB>, keys) =>
    keyByKey(keys, async (k) => ({
      user: await users.get(db, k.userId),
      sourceExists: await idps.exists(db, k.source),
      targetExists: await idps.exists(db, k.target),
    })),
  decide: (state, command) => decision(decideMoveUserIdentityProvider(state, command), undefined),
};
