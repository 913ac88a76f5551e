import type { Kysely } from 'kysely';
import { decideUpdateUser, type UserRecord, type UserUpdateState, type ValidatedUserUpdate } from '@ledgerline/domain';
import type { DB } from '../schema';
import { loadObjectMetaState } from './object-meta-state';
import { userFromRow } from '../repositories/users.repository';
import { changes, decision, reads, type Decider } from '../writer';

/** Which user a PATCH changes, and the identity provider it names. */
export interface UserUpdateKey {
  userId: string;
  identityProviderId: string;
}

interface UserRow {
  id: string;
  primary_party: string;
  is_deactivated: boolean;
  annotations: Record<string, string>;
  identity_provider_id: string;
  primary_party_authentication: boolean;
  resource_version: number | string;
}

/**
 * PATCH /v2/users/{user-id}: the user (with its resource version) and whether the named identity provider exists, then
 * `decideUpdateUser`. Updates of one user are decided one after the other, so of two updates naming the same resource
 * version exactly one succeeds.
 */
export const userUpdateDecider: Decider<
  ValidatedUserUpdate,
  UserUpdateKey,
  UserUpdateState,
  UserRecord & { resourceVersion: number }
> = {
  name: 'user-update',
  key: (request) => ({ userId: request.id, identityProviderId: request.identityProviderId }),
  conflicts: {
    userId: changes('user'),
    identityProviderId: reads('idp'),
  },
  async load(db: Kysely<DB>, keys: readonly UserUpdateKey[]): Promise<UserUpdateState[]> {
    const states = await loadObjectMetaState<UserRow>(
      db,
      'users',
      'id',
      keys.map((k) => ({ id: k.userId, identityProviderId: k.identityProviderId })),
    );
    return states.map(({ row, identityProviderExists }) => ({
      identityProviderExists,
      user: row ? userFromRow(row) : null,
    }));
  },
  decide(state, request) {
    const { events, user } = decideUpdateUser(state, request);
    return decision(events, user);
  },
};
