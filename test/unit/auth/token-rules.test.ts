import { describe, expect, it } from 'vitest';
import { checkTokenClaims, PARTICIPANT_AUDIENCE_PREFIX } from '@ledgerline/auth';
import { isLedgerError } from '@ledgerline/domain';

const policy = { participantId: 'participant1::1220ab' };
const rejects = (payload: Record<string, unknown>, p: Parameters<typeof checkTokenClaims>[1] = policy) => {
  try {
    checkTokenClaims(payload, p);
  } catch (e) {
    return isLedgerError(e) && e.httpStatus === 401;
  }
  return false;
};

describe('token claim rules (Canton AuthServiceJWTPayload)', () => {
  it('accepts an audience-based token for this participant and yields sub as the user', () => {
    expect(
      checkTokenClaims({ sub: 'alice', aud: `${PARTICIPANT_AUDIENCE_PREFIX}participant1::1220ab` }, policy).userId,
    ).toBe('alice');
    expect(
      checkTokenClaims({ sub: 'alice', aud: ['x', `${PARTICIPANT_AUDIENCE_PREFIX}participant1::1220ab`] }, policy)
        .userId,
    ).toBe('alice');
  });
  it('rejects an audience for another participant, or two participant audiences', () => {
    expect(rejects({ sub: 'a', aud: `${PARTICIPANT_AUDIENCE_PREFIX}other` })).toBe(true);
    expect(
      rejects({
        sub: 'a',
        aud: [`${PARTICIPANT_AUDIENCE_PREFIX}participant1::1220ab`, `${PARTICIPANT_AUDIENCE_PREFIX}x`],
      }),
    ).toBe(true);
  });
  it('accepts the deprecated scope form (space-separated scope or scp array)', () => {
    expect(checkTokenClaims({ sub: 'a', scope: 'openid daml_ledger_api' }, policy).userId).toBe('a');
    expect(checkTokenClaims({ sub: 'a', scp: ['daml_ledger_api'], aud: '' }, policy).userId).toBe('a');
    expect(rejects({ sub: 'a', scope: 'daml_ledger_api', aud: 'someone-else' })).toBe(true);
  });
  it('rejects unknown scopes, missing sub, and tokens with neither form', () => {
    expect(rejects({ sub: 'a', scope: 'something' })).toBe(true);
    expect(rejects({ aud: `${PARTICIPANT_AUDIENCE_PREFIX}participant1::1220ab` })).toBe(true);
    expect(rejects({ sub: 'a' })).toBe(true);
  });
  it('with a target audience configured, requires it', () => {
    const p = { ...policy, targetAudience: 'https://canton.network.global' };
    expect(checkTokenClaims({ sub: 'a', aud: 'https://canton.network.global' }, p).userId).toBe('a');
    expect(rejects({ sub: 'a', aud: `${PARTICIPANT_AUDIENCE_PREFIX}participant1::1220ab` }, p)).toBe(true);
  });
});
