import type { Kysely } from 'kysely';
import { decidePruneStep, type PruneStepDecision, type PruningState } from '@ledgerline/domain';
import type { DB } from '../schema';
import { everything, type Decider } from '../writer';
import { LedgerUpdatesRepository } from '../repositories/ledger-updates.repository';
import { keyByKey } from './key-by-key';

/** One step of pruning the ledger up to `upTo`. */
export interface PruneLedgerStep {
  upTo: number;
  stepOffsets: number;
}

const updates = new LedgerUpdatesRepository();

/**
 * A pruning step (`decidePruneStep`) on the ledger end as its transaction sees it and the current pruning offset. It
 * depends on the ledger end and deletes rows of many tables, so it shares a run with no other command. The answer: the
 * pruning offset afterwards and whether the prune is complete, or for a step with events, `stepped`.
 */
export const ledgerPruningDecider: Decider<PruneLedgerStep, { ledger: true }, PruningState, PruneStepDecision & { stepped: boolean }> = {
  name: 'ledger-pruning',
  key: () => ({ ledger: true }),
  conflicts: { ledger: everything },
  load: (db: Kysely<DB>, keys, at) => keyByKey(keys, async () => ({ ledgerEnd: at.ledgerEnd, prunedUpTo: (await updates.position(db)).prunedUpTo })),
  decide(state, { upTo, stepOffsets }) {
    const step = decidePruneStep(state, upTo, stepOffsets);
    return { events: step.events, answer: () => ({ ...step, stepped: step.events.length > 0 }) };
  },
};
