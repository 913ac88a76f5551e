import type { Kysely } from 'kysely';
import { decidePruneStep, type PruningState } from '@ledgerline/domain';
import type { DB } from '../schema';
import { decision, everything, type Decider } from '../writer';
import { keyByKey } from './key-by-key';
import { repositories } from './repositories';

/** One step of pruning the ledger up to `upTo`. */
export interface PruneLedgerStep {
  upTo: number;
  stepOffsets: number;
}

const updates = repositories.ledgerUpdates;

/** The pruning offset after a step, whether the prune is complete, and whether the step appended anything. */
export interface PruneStepResult {
  prunedUpTo: number;
  done: boolean;
  stepped: boolean;
}

/**
 * A pruning step (`decidePruneStep`) on the ledger end as its transaction sees it and the current pruning offset. It
 * depends on the ledger end and deletes rows of many tables, so it shares a run with no other command.
 */
export const ledgerPruningDecider: Decider<PruneLedgerStep, { ledger: true }, PruningState, PruneStepResult> = {
  name: 'ledger-pruning',
  key: () => ({ ledger: true }),
  conflicts: { ledger: everything },
  load: (db: Kysely<DB>, keys, at) =>
    keyByKey(keys, async () => ({ ledgerEnd: at.ledgerEnd, prunedUpTo: (await updates.position(db)).prunedUpTo })),
  decide(state, { upTo, stepOffsets }) {
    const { events, prunedUpTo, done } = decidePruneStep(state, upTo, stepOffsets);
    return decision(events, { prunedUpTo, done, stepped: events.length > 0 });
  },
};
