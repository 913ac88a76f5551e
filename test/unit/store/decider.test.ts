import { describe, expect, it } from 'vitest';
import {
  changes,
  conflictsOf,
  transactionSubmissionDecider,
  namesNoState,
  partyUpdateDecider,
  reads,
  reassignmentDecider,
  type KeyConflicts,
} from '@ledgerline/store';

/** A decider's conflict keys come from its key's fields, one declaration per field (checked by the compiler). */
describe('decider conflict keys', () => {
  it('a PATCH of a party changes the party and reads the identity provider it names', () => {
    expect(conflictsOf(partyUpdateDecider.conflicts, { party: 'p::1220aa', identityProviderId: 'idp1' })).toEqual({
      reads: ['party:p::1220aa', 'idp:idp1'],
      writes: ['party:p::1220aa'],
    });
  });

  it('an execution changes its change id, the contracts it consumes and creates, and reads the ones it only uses', () => {
    const key = {
      changeId: 'ch',
      readContractIds: ['r'],
      consumedContractIds: ['c1', 'c2'],
      createdContractIds: ['n'],
    };
    expect(conflictsOf(transactionSubmissionDecider.conflicts, key)).toEqual({
      reads: [
        'change:ch',
        'contract:r',
        'assignments:any',
        'contract:c1',
        'contract:c2',
        'assignments:any',
        'contract:n',
        'assignments:any',
      ],
      writes: ['change:ch', 'contract:c1', 'contract:c2', 'contract:n'],
    });
  });

  it('an unassign changes its contracts; an assign changes its unassignment and the contracts assigns move', () => {
    const change = { userId: 'u', submitter: 'alice::1220aa', commandId: 'c' };
    const unassign = conflictsOf(reassignmentDecider.conflicts, {
      kind: 'unassign',
      change,
      contractIds: ['k1'],
      reassignmentId: '',
    });
    const assign = conflictsOf(reassignmentDecider.conflicts, {
      kind: 'assign',
      change,
      contractIds: [],
      reassignmentId: 'r1',
    });
    const changeKey = unassign.writes[0];
    expect(changeKey).toMatch(/^reassignment-change:/);
    expect(unassign).toEqual({
      reads: [changeKey, 'party:alice::1220aa', 'contract:k1', 'assignments:any'],
      writes: [changeKey, 'contract:k1'],
    });
    expect(assign).toEqual({
      reads: [changeKey, 'party:alice::1220aa', 'reassignment:r1', 'assignments:any'],
      writes: [changeKey, 'reassignment:r1', 'assignments:any'],
    });
  });

  it('every field of a key must declare the state it names', () => {
    interface Key {
      party: string;
      contracts: string[];
      mode: 'a' | 'b';
      nested: { id: string };
    }
    const complete: KeyConflicts<Key> = {
      party: changes('party'),
      contracts: reads('contract'),
      mode: namesNoState,
      nested: reads('user', (n: { id: string }) => n.id),
    };
    expect(conflictsOf<Key>(complete, { party: 'p', contracts: ['x', 'y'], mode: 'a', nested: { id: 'n' } })).toEqual({
      reads: ['party:p', 'contract:x', 'contract:y', 'user:n'],
      writes: ['party:p'],
    });
    // @ts-expect-error a field without its declaration does not compile
    const missing: KeyConflicts<Key> = { party: changes('party'), contracts: reads('contract'), mode: namesNoState };
    const untyped: KeyConflicts<Key> = {
      party: changes('party'),
      contracts: reads('contract'),
      mode: namesNoState,
      // @ts-expect-error a field that is not ids needs a function naming its ids
      nested: reads('user'),
    };
    expect([missing, untyped]).toHaveLength(2);
  });
});
