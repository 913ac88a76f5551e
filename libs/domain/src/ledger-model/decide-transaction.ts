import { TRANSACTION_COMMITTED, type StoredTransaction } from '../ledger/updates';
import type { NewEvent } from '../ledger/events';
import { isLedgerError } from '../errors';
import { checkConsistency, type StoredContractState } from './consistency';
import { checkDeduplication, type CompletedChange, type DeduplicationPeriod } from './deduplication';
import { failedToExecute } from './errors';
import { checkTimeBounds, type PreparedTimes, type TimeBoundsConfig } from './time-bounds';
import { buildTransactionEffects } from './transaction-effects';
import type { WellFormedTransaction } from './well-formedness';

/** Everything the writer knows when it decides an already authorized, signature-checked transaction. */
export interface DecideTransactionInput {
  wf: WellFormedTransaction;
  synchronizerId: string;
  commandId: string;
  submission: { userId: string; actAs: string[]; submissionId: string };
  times: PreparedTimes;
  minLedgerTime?: bigint;
  externalTransactionHash: string;
  deduplication: { period: DeduplicationPeriod; completed: CompletedChange | undefined };
  contracts: ReadonlyMap<string, StoredContractState>;
  now: bigint;
  timeConfig: TimeBoundsConfig;
}

export interface DecidedTransaction {
  event: NewEvent<typeof TRANSACTION_COMMITTED, StoredTransaction>;
  ledgerEffectiveTime: bigint;
}

/**
 * Deduplication, then consistency, then time — on the state read inside the writer's transaction, so two submissions
 * consuming the same contract are decided one after the other. Returns the single 'TransactionCommitted' event.
 */
export function decideTransaction(input: DecideTransactionInput): DecidedTransaction {
  checkDeduplication(input.deduplication.completed, input.deduplication.period, input.now);
  const consistency = checkConsistency({ wf: input.wf, synchronizerId: input.synchronizerId, contracts: input.contracts });
  const ledgerEffectiveTime = checkTimeBounds(input.times, input.now, input.timeConfig, input.minLedgerTime);
  let effects;
  try {
    effects = buildTransactionEffects({
      consistency,
      commandId: input.commandId,
      ledgerEffectiveTime,
      externalTransactionHash: input.externalTransactionHash,
      submission: input.submission,
    });
  } catch (e) {
    if (isLedgerError(e)) throw e;
    throw failedToExecute((e as Error).message);
  }
  return {
    ledgerEffectiveTime,
    event: {
      type: TRANSACTION_COMMITTED,
      stream: `transaction:${input.externalTransactionHash}`,
      data: effects.transaction,
      update: { kind: 'Transaction', synchronizerId: input.synchronizerId, parties: effects.parties, commandId: input.commandId },
    },
  };
}
