import type { Kysely } from 'kysely';
import {
  decideCreateUser,
  needsPartyRecordsForRights,
  partiesOfRights,
  verifyPartiesExistInIdentityProvider,
  type Claims,
  type PartyRecord,
  type Right,
  type UserRecord,
  type UserState,
} from '@ledgerline/domain';
import type { DB } from '../schema';
import { changes, decision, reads, type Decider } from '../writer';
import type { StoredUser } from '../repositories/users.repository';
import { keyByKey } from './key-by-key';
import { repositories } from './repositories';

/** A user to create (authorized and validated), with its rights. */
export interface CreateUser {
  /** The caller; null for the service itself (the bootstrap admin). */
  claims: Claims | null;
  user: UserRecord;
  rights: Right[];
  /** Bootstrap: an existing user is left as it is (no event, the answer null) instead of refused. */
  ifAbsent?: boolean;
}

/** The user, and the party records of the rights' parties that the caller must show to be in its identity provider. */
export interface UserCreationKey {
  userId: string;
  parties: readonly string[];
}

export interface UserCreationState {
  user: UserState;
  parties: PartyRecord[];
}

const users = repositories.users;
const partyRecords = repositories.parties;

/** The rights' parties whose records are in `identityProviderId`. */
export const partiesInProvider = (records: readonly PartyRecord[], identityProviderId: string): Set<string> =>
  new Set(records.filter((r) => r.identityProviderId === identityProviderId).map((r) => r.party));

/** The party records a rights change must read: only a caller who is not a participant admin is limited by them. */
export const partiesToVerify = (claims: Claims | null, rights: Right[]): string[] =>
  claims && needsPartyRecordsForRights(claims, rights) ? partiesOfRights(rights) : [];

/** The user as stored right after its creation (resource version 0). */
export const createdUser = (user: UserRecord): StoredUser => ({
  ...user,
  primaryPartyAuthentication: user.primaryPartyAuthentication ?? false,
  resourceVersion: 0,
});

/**
 * POST /v2/users: the parties named must be in the caller's identity provider (non-admins), then `decideCreateUser`.
 * The answer is the user as stored.
 */
export const userCreationDecider: Decider<CreateUser, UserCreationKey, UserCreationState, StoredUser | null> = {
  name: 'user-creation',
  key: ({ claims, user, rights }) => ({ userId: user.id, parties: partiesToVerify(claims, rights) }),
  conflicts: {
    userId: changes('user'),
    parties: reads('party'),
  },
  load: (db: Kysely<DB>, keys) =>
    keyByKey(keys, async (k) => ({
      user: await users.state(db, k.userId),
      parties: await partyRecords.getMany(db, [...k.parties]),
    })),
  decide(state, { claims, user, rights, ifAbsent }) {
    if (ifAbsent && state.user.user) return decision([], null);
    if (claims)
      verifyPartiesExistInIdentityProvider(
        claims,
        rights,
        user.identityProviderId,
        partiesInProvider(state.parties, user.identityProviderId),
      );
    return decision(decideCreateUser(state.user, user, rights), createdUser(user));
  },
};
