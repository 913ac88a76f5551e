import type { Claims, PartyRecord, UserRecord } from '@ledgerline/domain';

/** Callers and records the decider specifications share. */
export const admin: Claims = { userId: 'admin', identityProviderId: '', rights: [{ kind: 'ParticipantAdmin' }] };
export const idpAdmin: Claims = {
  userId: 'idp-admin',
  identityProviderId: 'idp1',
  rights: [{ kind: 'IdentityProviderAdmin' }],
};

export const NAMESPACE = `1220${'cd'.repeat(32)}`;
export const PARTICIPANT = `participant1::1220${'ab'.repeat(32)}`;
export const SYNC_A = `alpha::1220${'a1'.repeat(32)}`;
export const SYNC_B = `beta::1220${'b2'.repeat(32)}`;
export const alice = `alice::${NAMESPACE}`;
export const bob = `bob::${NAMESPACE}`;

export const user = (id: string, o: Partial<UserRecord> = {}): UserRecord => ({
  id,
  primaryParty: '',
  isDeactivated: false,
  annotations: {},
  identityProviderId: '',
  ...o,
});

export const partyRecord = (party: string, o: Partial<PartyRecord> = {}): PartyRecord => ({
  party,
  isLocal: true,
  identityProviderId: '',
  annotations: {},
  resourceVersion: 0,
  synchronizerId: SYNC_A,
  ...o,
});
