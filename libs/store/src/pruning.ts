import { decidePrune } from '@ledgerline/domain';
import type { LedgerWriter } from './writer';
import { LedgerUpdatesRepository } from './repositories/ledger-updates.repository';

/**
 * Prunes the ledger up to `upTo` (inclusive) through the event log: reads the ledger end and current pruning offset in
 * the write transaction, decides, appends 'LedgerPruned' (its projection deletes the rows). Returns the pruning offset
 * in force afterwards. Shared by the admin endpoint and `ledgerctl prune`.
 */
export async function pruneLedger(store: LedgerWriter, upTo: number): Promise<number> {
  const repo = new LedgerUpdatesRepository();
  return store.execute(async (tx) => {
    const pos = await repo.position(tx.db);
    // The ledger end with the updates committed earlier in the same transaction (the head row is written at its end).
    const events = decidePrune({ ledgerEnd: tx.ledgerEnd(), prunedUpTo: pos.prunedUpTo }, upTo);
    if (events.length) await tx.append(events);
    return Math.max(pos.prunedUpTo, events.length ? upTo : 0);
  });
}
