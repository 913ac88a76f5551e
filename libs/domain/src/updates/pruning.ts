import { invalidArgument } from '../errors';
import type { NewEvent } from '../ledger/events';
import { nonPositiveOffset } from './range';

export const LEDGER_PRUNED = 'LedgerPruned';
export const PRUNING_STREAM = 'ledger:pruning';

/** data of a 'LedgerPruned' event: updates at or below `prunedUpTo` are no longer served. */
export interface LedgerPruned {
  prunedUpTo: number;
}

export interface PruningState {
  ledgerEnd: number;
  prunedUpTo: number;
}

/**
 * Pruning up to `upTo` (inclusive): it must be positive and not beyond the ledger end. Pruning to or below the current
 * pruning offset changes nothing (no event).
 */
export function decidePrune(state: PruningState, upTo: number): NewEvent<typeof LEDGER_PRUNED, LedgerPruned>[] {
  if (!Number.isSafeInteger(upTo) || upTo <= 0)
    throw nonPositiveOffset(upTo, 'prune_up_to', 'the offset has to be a positive integer (>0)');
  if (upTo > state.ledgerEnd)
    throw invalidArgument(`prune_up_to (${upTo}) is after the ledger end (${state.ledgerEnd})`);
  if (upTo <= state.prunedUpTo) return [];
  return [{ type: LEDGER_PRUNED, stream: PRUNING_STREAM, data: { prunedUpTo: upTo } }];
}
