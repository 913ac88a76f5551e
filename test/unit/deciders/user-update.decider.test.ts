import { describe, expect, it } from 'vitest';
import { userStream, type ValidatedUserUpdate } from '@ledgerline/domain';
import { userUpdateDecider } from '@ledgerline/store';
import { conflictKeysOf, spec } from '../../support/decider-spec';
import { user } from './fixtures';

const update = spec(userUpdateDecider);
const stored = (o = {}) => ({
  ...user('u1', { annotations: { a: '1' } }),
  primaryPartyAuthentication: false,
  resourceVersion: 3,
  ...o,
});
const patch = (o: Partial<ValidatedUserUpdate> = {}): ValidatedUserUpdate => ({
  id: 'u1',
  primaryParty: '',
  isDeactivated: false,
  primaryPartyAuthentication: false,
  annotations: { b: '2' },
  expectedVersion: null,
  maskPaths: ['metadata.annotations'],
  identityProviderId: '',
  callerUserId: 'admin',
  ...o,
});

describe('user update decider', () => {
  it('merges the annotations, bumps the resource version and answers the user as updated', () => {
    const after = { ...user('u1', { annotations: { a: '1', b: '2' } }), primaryPartyAuthentication: false };
    update
      .given({ identityProviderExists: true, user: stored() })
      .when(patch())
      .then([{ type: 'UserUpdated', stream: userStream('u1'), data: { user: after, resourceVersion: 4 } }], {
        ...after,
        resourceVersion: 4,
      });
  });

  it('a stale resource version is a concurrent update; an unknown user and an unknown provider are refused', () => {
    update
      .given({ identityProviderExists: true, user: stored() })
      .when(patch({ expectedVersion: 2n }))
      .rejects('CONCURRENT_USER_UPDATE_DETECTED');
    update.given({ identityProviderExists: true, user: null }).when(patch()).rejects('USER_NOT_FOUND');
    update
      .given({ identityProviderExists: false, user: stored() })
      .when(patch({ identityProviderId: 'idp9' }))
      .rejects('INVALID_ARGUMENT');
  });

  it("changes the user's key and reads the provider's", () => {
    expect(conflictKeysOf(userUpdateDecider, patch({ identityProviderId: 'idp1' }))).toEqual({
      reads: ['user:u1', 'idp:idp1'],
      writes: ['user:u1'],
    });
  });
});
