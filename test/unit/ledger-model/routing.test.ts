import { describe, expect, it } from 'vitest';
import { checkInputContractRouting, routedInputs, type ContractLocation } from '@ledgerline/domain';

const S1 = 'sync-a::1220' + 'aa'.repeat(32);
const S2 = 'sync-b::1220' + 'bb'.repeat(32);
const locations = new Map<string, ContractLocation>([
  ['c-active', { status: 'active', synchronizerId: S1 }],
  ['c-archived-1', { status: 'archived', synchronizerId: S1 }],
  ['c-archived-2', { status: 'archived', synchronizerId: S1 }],
  ['c-archived-3', { status: 'archived', synchronizerId: S2 }],
  ['c-in-flight', { status: 'in_flight', synchronizerId: null }],
]);
const none = new Set<string>();

function refusal(inputs: string[], disclosed = none) {
  try {
    checkInputContractRouting(inputs, disclosed, locations);
  } catch (e) {
    return e as { code: string; category: { id: number; httpStatus: number }; causeText: string; resources: unknown };
  }
  throw new Error('not refused');
}

describe('routing of input contracts (Canton ContractsSynchronizerData)', () => {
  it('active inputs pass', () => {
    expect(() => checkInputContractRouting(['c-active'], none, locations)).not.toThrow();
  });

  it('unknown and in-flight are not found; archived are grouped by synchronizer; category 9, HTTP 400', () => {
    const e = refusal(['c-active', 'c-unknown', 'c-archived-1', 'c-in-flight', 'c-archived-3', 'c-archived-2']);
    expect(e.code).toBe('UNKNOWN_CONTRACT_SYNCHRONIZERS');
    expect(e.category).toMatchObject({ id: 9, httpStatus: 400 });
    expect(e.causeText).toBe(
      'The synchronizers for the contracts (c-unknown, c-in-flight) are currently unknown due to ongoing contract reassignments or disconnected synchronizers.\n' +
        `The following contracts have been archived: List(c-archived-1, c-archived-2) on synchronizer ${S1}, List(c-archived-3) on synchronizer ${S2}.`,
    );
    expect(e.resources).toEqual([
      ['CONTRACT_IDS', '[c-unknown, c-in-flight, c-archived-1, c-archived-2, c-archived-3]'],
    ]);
  });

  it('disclosed contracts are not looked up (an interactive submission discloses all its inputs)', () => {
    const all = new Set(['c-unknown', 'c-archived-1']);
    expect(routedInputs(['c-unknown', 'c-archived-1'], all)).toEqual([]);
    expect(() => checkInputContractRouting(['c-unknown', 'c-archived-1'], all, locations)).not.toThrow();
    expect(refusal(['c-unknown', 'c-archived-1'], new Set(['c-unknown'])).causeText).toMatch(
      /^The following contracts have been archived: List\(c-archived-1\)/,
    );
  });
});
