import type { LedgerWriter } from './writer';
import { ledgerPruningDecider } from './deciders/ledger-pruning.decider';

/**
 * How many offsets one pruning step covers. Each step is its own writer work (one `LedgerPruned` event, its deletions in
 * one transaction under the head lock), so writers wait for at most one step, never for the whole prune.
 */
export const PRUNE_STEP_OFFSETS = 1_000;

export interface PruneOptions {
  /** Offsets per step (default PRUNE_STEP_OFFSETS). */
  stepOffsets?: number;
  /** Called after each committed step with the pruning offset in force. */
  onStep?: (prunedUpTo: number) => void;
  /**
   * After each step, wait as long as the step took before the next one (default true): steps run back to back would
   * leave writers only the gaps between them; paced, a prune holds the head lock at most about half of the time.
   */
  paced?: boolean;
}

/**
 * Prunes the ledger up to `upTo` (inclusive) through the event log, in steps (`ledgerPruningDecider`): each step reads the ledger end and the
 * current pruning offset in the write transaction, checks the whole request against them (a bad request fails at its
 * first step and changes nothing), then appends 'LedgerPruned' for at most `stepOffsets` offsets past the current pruning
 * offset (its projection deletes the rows). Between steps the head lock is free and other writes commit; each step is
 * followed by a pause as long as itself (`paced`). Pruning at a
 * smaller offset and then at a larger one leaves the same rows as pruning at the larger one at once, so the result does
 * not depend on the step size. Returns the pruning offset in force afterwards. Shared by the admin endpoint and
 * `ledgerctl prune`.
 */
export async function pruneLedger(store: LedgerWriter, upTo: number, opts: PruneOptions = {}): Promise<number> {
  const stepOffsets = Math.max(1, opts.stepOffsets ?? PRUNE_STEP_OFFSETS);
  for (;;) {
    const started = performance.now();
    const { prunedUpTo, done, stepped } = await store.decide(ledgerPruningDecider, { upTo, stepOffsets });
    if (stepped) opts.onStep?.(prunedUpTo);
    if (done) return prunedUpTo;
    if (opts.paced ?? true) await new Promise((r) => setTimeout(r, performance.now() - started));
  }
}
