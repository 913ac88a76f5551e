import { describe, expect, it } from 'vitest';
import {
  decideCreateUser,
  decideGrantRights,
  decideRevokeRights,
  isLedgerError,
  matchUserId,
  type UserState,
} from '@ledgerline/domain';

const empty: UserState = { user: null, rights: [] };
const alice = { id: 'alice', primaryParty: '', isDeactivated: false, annotations: {}, identityProviderId: '' };

describe('user rules', () => {
  it('creates a user once; a second create is USER_ALREADY_EXISTS (409)', () => {
    const created = decideCreateUser(empty, alice, [{ kind: 'CanActAs', party: 'p' }]);
    expect(created).toEqual([
      { type: 'UserCreated', stream: 'user:alice', data: { user: alice, rights: [{ kind: 'CanActAs', party: 'p' }] } },
    ]);
    const state: UserState = { user: alice, rights: [{ kind: 'CanActAs', party: 'p' }] };
    try {
      decideCreateUser(state, alice, []);
      expect.unreachable();
    } catch (e) {
      expect(isLedgerError(e) && e.code).toBe('USER_ALREADY_EXISTS');
      expect(isLedgerError(e) && e.httpStatus).toBe(409);
    }
  });

  it('rejects user ids outside the allowed alphabet', () => {
    expect(() => decideCreateUser(empty, { ...alice, id: 'a b' }, [])).toThrow(/INVALID_FIELD/);
    expect(() => decideCreateUser(empty, { ...alice, id: 'x'.repeat(129) }, [])).toThrow(/INVALID_FIELD/);
  });

  it('grants only rights not held yet, and revokes only rights held', () => {
    const state: UserState = { user: alice, rights: [{ kind: 'CanReadAs', party: 'p' }] };
    const g = decideGrantRights(state, 'alice', [
      { kind: 'CanReadAs', party: 'p' },
      { kind: 'CanActAs', party: 'p' },
      { kind: 'CanActAs', party: 'p' },
    ]);
    expect(g.newlyGranted).toEqual([{ kind: 'CanActAs', party: 'p' }]);
    expect(g.events).toEqual([
      {
        type: 'UserRightsGranted',
        stream: 'user:alice',
        data: { userId: 'alice', rights: [{ kind: 'CanActAs', party: 'p' }] },
      },
    ]);
    // The stored rights after the grant (what the users projection then holds: test/integration/store/decider-answers.test.ts).
    const after: UserState = { ...state, rights: [...state.rights, ...g.newlyGranted] };
    const r = decideRevokeRights(after, 'alice', [{ kind: 'CanActAs', party: 'p' }, { kind: 'ParticipantAdmin' }]);
    expect(r.newlyRevoked).toEqual([{ kind: 'CanActAs', party: 'p' }]);
    expect(r.events).toEqual([
      {
        type: 'UserRightsRevoked',
        stream: 'user:alice',
        data: { userId: 'alice', rights: [{ kind: 'CanActAs', party: 'p' }] },
      },
    ]);
  });

  it('MatchUserId defaults an empty user id to the caller and refuses another', () => {
    const claims = { userId: 'alice', identityProviderId: '', rights: [] };
    expect(matchUserId(claims, '')).toBe('alice');
    expect(matchUserId(claims, 'alice')).toBe('alice');
    expect(() => matchUserId(claims, 'bob')).toThrow(/PERMISSION_DENIED/);
    expect(() => matchUserId({ ...claims, userId: '' }, '')).toThrow(/INVALID_TOKEN/);
  });
});
