import type { NewLedgerEvent } from '../ledger/ledger-event';
import { decidePrune, type LEDGER_PRUNED, type PruningState } from './pruning';

/** One step of a prune up to `upTo`: its events, the pruning offset after it, and whether the prune is complete. */
export interface PruneStepDecision {
  events: NewLedgerEvent<typeof LEDGER_PRUNED>[];
  prunedUpTo: number;
  done: boolean;
}

/**
 * A prune goes in steps of at most `stepOffsets` offsets past the current pruning offset, so that one step never holds
 * the ledger for long. Every step checks the whole request (`decidePrune`): a bad request fails at its first step and
 * changes nothing. A step with nothing left to prune appends nothing and completes the prune.
 */
export function decidePruneStep(state: PruningState, upTo: number, stepOffsets: number): PruneStepDecision {
  if (!decidePrune(state, upTo).length) return { events: [], prunedUpTo: state.prunedUpTo, done: true };
  const target = Math.min(upTo, state.prunedUpTo + Math.max(1, stepOffsets));
  return { events: decidePrune(state, target), prunedUpTo: target, done: target >= upTo };
}
