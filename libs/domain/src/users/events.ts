import { Right } from '../auth/rights';

export interface UserRecord {
  id: string;
  primaryParty: string;
  isDeactivated: boolean;
  annotations: Record<string, string>;
  identityProviderId: string;
  /** May authenticate with a Party JWT signed by the primary party's key (stored; not used for authentication). */
  primaryPartyAuthentication?: boolean;
}

export type UserEvent =
  | { type: 'UserCreated'; stream: string; data: { user: UserRecord; rights: Right[] } }
  | { type: 'UserRightsGranted'; stream: string; data: { userId: string; rights: Right[] } }
  | { type: 'UserRightsRevoked'; stream: string; data: { userId: string; rights: Right[] } }
  | { type: 'UserUpdated'; stream: string; data: { user: UserRecord; resourceVersion: number } }
  | { type: 'UserIdentityProviderChanged'; stream: string; data: { userId: string; identityProviderId: string } }
  | { type: 'UserDeleted'; stream: string; data: { userId: string } };

export const userStream = (id: string) => `user:${id}`;
