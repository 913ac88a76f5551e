import { describe, expect, it } from 'vitest';
import { LEDGER_PRUNED, PRUNING_STREAM, type NewLedgerEvent } from '@ledgerline/domain';
import { ledgerPruningDecider } from '@ledgerline/store';
import { conflictKeysOf, spec } from '../../support/decider-spec';

const pruning = spec(ledgerPruningDecider);
const pruned = (prunedUpTo: number): NewLedgerEvent<typeof LEDGER_PRUNED> => ({
  type: LEDGER_PRUNED,
  stream: PRUNING_STREAM,
  data: { prunedUpTo },
});

describe('ledger pruning decider', () => {
  it('prunes at most one step past the current pruning offset, and says the prune is not complete', () => {
    pruning
      .given({ ledgerEnd: 50, prunedUpTo: 10 })
      .when({ upTo: 40, stepOffsets: 20 })
      .then([pruned(30)], { prunedUpTo: 30, done: false, stepped: true });
  });

  it('the last step reaches the offset and completes the prune', () => {
    pruning
      .given({ ledgerEnd: 50, prunedUpTo: 30 })
      .when({ upTo: 40, stepOffsets: 20 })
      .then([pruned(40)], { prunedUpTo: 40, done: true, stepped: true });
  });

  it('pruned already: nothing appended, complete', () => {
    pruning
      .given({ ledgerEnd: 50, prunedUpTo: 40 })
      .when({ upTo: 40, stepOffsets: 20 })
      .thenNothing({ prunedUpTo: 40, done: true, stepped: false });
  });

  it('an offset after the ledger end, or not positive, is refused at the first step', () => {
    pruning
      .given({ ledgerEnd: 50, prunedUpTo: 0 })
      .when({ upTo: 51, stepOffsets: 20 })
      .rejects('INVALID_ARGUMENT', /after the ledger end \(50\)/);
    pruning.given({ ledgerEnd: 50, prunedUpTo: 0 }).when({ upTo: 0, stepOffsets: 20 }).rejects('NON_POSITIVE_OFFSET');
  });

  it('shares a run with no other command', () => {
    expect(conflictKeysOf(ledgerPruningDecider, { upTo: 1, stepOffsets: 1 })).toEqual({
      reads: ['*:all'],
      writes: ['*:all'],
    });
  });
});
