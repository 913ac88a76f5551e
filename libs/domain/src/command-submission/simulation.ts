/**
 * Dry runs (POST /v2/commands/simulate): what a submission would do, decided as the submission is but not committed. The
 * offset the dry run reads the ledger at is checked as an active-contracts snapshot offset is (NEGATIVE_OFFSET,
 * OFFSET_AFTER_LEDGER_END, PARTICIPANT_PRUNED_DATA_ACCESSED); the contracts the transaction would read, create and archive
 * are read off its events. Pure.
 */
import { ErrorCategories as C, failedPrecondition, LedgerError } from '../errors';
import type { StoredTransaction } from '../ledger/updates';
import { negativeOffset } from '../updates/range';

/** The offset a dry run reads the ledger at: `atOffset`, or the ledger end when absent. */
export function simulationOffset(atOffset: number | null, ledger: { ledgerEnd: number; prunedUpTo: number }): number {
  if (atOffset === null) return ledger.ledgerEnd;
  if (atOffset < 0) throw negativeOffset(atOffset, 'at_offset');
  if (atOffset > ledger.ledgerEnd)
    throw new LedgerError(
      'OFFSET_AFTER_LEDGER_END',
      C.InvalidGivenCurrentSystemStateSeekAfterEnd,
      `at_offset offset (${atOffset}) is after ledger end (${ledger.ledgerEnd})`,
    );
  if (atOffset < ledger.prunedUpTo)
    throw failedPrecondition(
      'PARTICIPANT_PRUNED_DATA_ACCESSED',
      `Simulation at offset ${atOffset} precedes pruned offset ${ledger.prunedUpTo}`,
      { context: { earliest_offset: String(ledger.prunedUpTo) } },
    );
  return atOffset;
}

/** The contract ids a transaction reads (uses without archiving), creates and archives (transient ones included). */
export interface SimulatedContracts {
  read: string[];
  created: string[];
  archived: string[];
}

export function simulatedContracts(tx: StoredTransaction, inputContractIds: readonly string[]): SimulatedContracts {
  const created: string[] = [];
  const archived: string[] = [];
  for (const e of tx.events) {
    if ('CreatedEvent' in e) created.push(e.CreatedEvent.contractId);
    else if ('ExercisedEvent' in e && e.ExercisedEvent.consuming) archived.push(e.ExercisedEvent.contractId);
  }
  const gone = new Set(archived);
  return { read: inputContractIds.filter((c) => !gone.has(c)), created, archived };
}
