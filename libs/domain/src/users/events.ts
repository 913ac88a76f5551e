import type { Right } from '../auth/rights';
import type { NewEvent } from '../ledger/events';

export interface UserRecord {
  id: string;
  primaryParty: string;
  isDeactivated: boolean;
  annotations: Record<string, string>;
  identityProviderId: string;
  /** May authenticate with a Party JWT signed by the primary party's key (stored; not used for authentication). */
  primaryPartyAuthentication?: boolean;
}

export const USER_CREATED = 'UserCreated';
export const USER_RIGHTS_GRANTED = 'UserRightsGranted';
export const USER_RIGHTS_REVOKED = 'UserRightsRevoked';
export const USER_UPDATED = 'UserUpdated';
export const USER_IDENTITY_PROVIDER_CHANGED = 'UserIdentityProviderChanged';
export const USER_DELETED = 'UserDeleted';

/** data of a 'UserCreated' event. */
export interface UserCreatedData {
  user: UserRecord;
  rights: Right[];
}

/** data of a 'UserRightsGranted' or 'UserRightsRevoked' event: the rights that changed. */
export interface UserRightsChangedData {
  userId: string;
  rights: Right[];
}

/** data of a 'UserUpdated' event. */
export interface UserUpdatedData {
  user: UserRecord;
  resourceVersion: number;
}

/** data of a 'UserIdentityProviderChanged' event. */
export interface UserIdentityProviderChangedData {
  userId: string;
  identityProviderId: string;
}

/** data of a 'UserDeleted' event. */
export interface UserDeletedData {
  userId: string;
}

export type UserEvent =
  | NewEvent<typeof USER_CREATED, UserCreatedData>
  | NewEvent<typeof USER_RIGHTS_GRANTED, UserRightsChangedData>
  | NewEvent<typeof USER_RIGHTS_REVOKED, UserRightsChangedData>
  | NewEvent<typeof USER_UPDATED, UserUpdatedData>
  | NewEvent<typeof USER_IDENTITY_PROVIDER_CHANGED, UserIdentityProviderChangedData>
  | NewEvent<typeof USER_DELETED, UserDeletedData>;

export const userStream = (id: string) => `user:${id}`;
