import { decidePrune } from '@ledgerline/domain';
import type { EventStore } from './event-store';
import { LedgerUpdatesRepository } from './repositories/ledger-updates.repository';

/**
 * Prunes the ledger up to `upTo` (inclusive) through the event log: reads the ledger end and current pruning offset in
 * the write transaction, decides, appends 'LedgerPruned' (its projection deletes the rows). Returns the pruning offset
 * in force afterwards. Shared by the admin endpoint and `ledgerctl prune`.
 */
export async function pruneLedger(store: EventStore, upTo: number): Promise<number> {
  const repo = new LedgerUpdatesRepository();
  return store.execute(async (tx) => {
    const pos = await repo.position(tx.db);
    const events = decidePrune({ ledgerEnd: pos.ledgerEnd, prunedUpTo: pos.prunedUpTo }, upTo);
    if (events.length) await tx.append(events);
    return Math.max(pos.prunedUpTo, events.length ? upTo : 0);
  });
}
