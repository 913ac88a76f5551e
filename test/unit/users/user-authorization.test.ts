import { describe, expect, it } from 'vitest';
import {
  authorizeUserRightsChange,
  isLedgerError,
  needsParticipantAdmin,
  verifyPartiesExistInIdentityProvider,
  type Claims,
  type Right,
} from '@ledgerline/domain';

const participantAdmin: Claims = { userId: 'admin', identityProviderId: '', rights: [{ kind: 'ParticipantAdmin' }] };
const idpAdmin: Claims = {
  userId: 'idp-admin',
  identityProviderId: 'idp-a',
  rights: [{ kind: 'IdentityProviderAdmin' }],
};
const plain: Claims = {
  userId: 'plain',
  identityProviderId: 'idp-a',
  rights: [{ kind: 'CanActAs', party: 'p::1220aa' }],
};

function thrown(f: () => unknown) {
  try {
    f();
  } catch (e) {
    if (isLedgerError(e)) return e;
    throw e;
  }
  throw new Error('did not throw');
}

describe('who may hand out which right (Canton UserManagementServiceAuthorization)', () => {
  it('needsParticipantAdmin: ParticipantAdmin and the three *AnyParty rights only', () => {
    const kinds: Array<[Right, boolean]> = [
      [{ kind: 'ParticipantAdmin' }, true],
      [{ kind: 'CanReadAsAnyParty' }, true],
      [{ kind: 'CanExecuteAsAnyParty' }, true],
      [{ kind: 'CanActAsAnyParty' }, true],
      [{ kind: 'IdentityProviderAdmin' }, false],
      [{ kind: 'CanActAs', party: 'p' }, false],
      [{ kind: 'CanReadAs', party: 'p' }, false],
      [{ kind: 'CanExecuteAs', party: 'p' }, false],
    ];
    for (const [r, needs] of kinds) expect(needsParticipantAdmin([r]), r.kind).toBe(needs);
  });

  it('an IDP admin: its own provider implied, IdentityProviderAdmin grantable, *AnyParty refused', () => {
    expect(authorizeUserRightsChange(idpAdmin, [{ kind: 'IdentityProviderAdmin' }], '')).toBe('idp-a');
    expect(thrown(() => authorizeUserRightsChange(idpAdmin, [{ kind: 'CanActAsAnyParty' }], '')).code).toBe(
      'PERMISSION_DENIED',
    );
    expect(thrown(() => authorizeUserRightsChange(idpAdmin, [{ kind: 'CanActAs', party: 'p' }], 'idp-b')).code).toBe(
      'PERMISSION_DENIED',
    );
    expect(thrown(() => authorizeUserRightsChange(plain, [{ kind: 'CanActAs', party: 'p' }], '')).code).toBe(
      'PERMISSION_DENIED',
    );
    expect(authorizeUserRightsChange(participantAdmin, [{ kind: 'ParticipantAdmin' }], '')).toBe('');
  });

  it('parties outside the provider: UNKNOWN_RESOURCE naming each once; a participant admin is not checked', () => {
    const rights: Right[] = [
      { kind: 'CanActAs', party: 'a::1' },
      { kind: 'CanReadAs', party: 'b::1' },
      { kind: 'CanExecuteAs', party: 'b::1' },
      { kind: 'CanReadAs', party: 'c::1' },
    ];
    const e = thrown(() => verifyPartiesExistInIdentityProvider(idpAdmin, rights, 'idp-a', new Set(['a::1'])));
    expect([e.code, e.httpStatus]).toEqual(['UNKNOWN_RESOURCE', 404]);
    expect(e.causeText).toBe(
      'The submitted request refers to a non-existing PARTIES: Provided parties have not been found in identity_provider_id=`idp-a`: [b::1,c::1].',
    );
    expect(e.resources).toEqual([
      ['PARTIES', 'b::1'],
      ['PARTIES', 'c::1'],
    ]);
    expect(() =>
      verifyPartiesExistInIdentityProvider(idpAdmin, rights, 'idp-a', new Set(['a::1', 'b::1', 'c::1'])),
    ).not.toThrow();
    expect(() => verifyPartiesExistInIdentityProvider(participantAdmin, rights, '', new Set())).not.toThrow();
  });
});
