import { TRANSACTION_COMMITTED } from '../ledger/updates';
import type { NewLedgerEvent } from '../ledger/ledger-event';
import { isLedgerError } from '../errors';
import type { StoredDeduplicationPeriod } from '../command-completions/events';
import { checkConsistency, transactionShape, type StoredContractState } from './consistency';
import { checkDeduplication, type CompletedChange, type DeduplicationPeriod } from './deduplication';
import { failedToExecute } from './errors';
import { checkTimeBounds, chooseLedgerTime, type PreparedTimes, type TimeBoundsConfig } from './time-bounds';
import { buildTransactionEffects, type TransactionEffects } from './transaction-effects';
import type { WellFormedTransaction } from './well-formedness';

/** Everything the writer knows when it decides an already authorized, signature-checked transaction. */
export interface DecideTransactionInput {
  wf: WellFormedTransaction;
  synchronizerId: string;
  commandId: string;
  /** '' for none. */
  workflowId?: string;
  submission: {
    userId: string;
    actAs: string[];
    submissionId: string;
    deduplicationPeriod?: StoredDeduplicationPeriod;
  };
  times: PreparedTimes;
  minLedgerTime?: bigint;
  /** Hex multihash of the externally signed hash; null for commands of local parties. */
  externalTransactionHash: string | null;
  deduplication: { period: DeduplicationPeriod; completed: CompletedChange | undefined };
  contracts: ReadonlyMap<string, StoredContractState>;
  now: bigint;
  timeConfig: TimeBoundsConfig;
  /** The transaction's effects rendered when it was submitted (`prerenderTransaction`); rendered here when absent. */
  rendered?: RenderedTransaction;
}

/**
 * A transaction's committed form, rendered when it is submitted, before the writer reads the ledger state: the effects
 * (created events with their `createArgument` JSON and `createdEventBlob`) and their JSON text depend only on the
 * transaction and its ledger effective time, which is chosen at submission (see `checkTimeBounds`). Rendering them here
 * keeps that work out of the writer's batch, which holds the ledger lock.
 */
export interface RenderedTransaction {
  submittedAt: bigint;
  ledgerEffectiveTime: bigint;
  effects: TransactionEffects;
  /** `JSON.stringify(effects.transaction)` */
  dataText: string;
}

export type PrerenderTransactionInput = Pick<
  DecideTransactionInput,
  'wf' | 'commandId' | 'workflowId' | 'submission' | 'times' | 'minLedgerTime' | 'externalTransactionHash'
>;

/** The effects of `input` submitted at `submittedAt`; undefined when the transaction contradicts itself (the writer rejects it). */
export function prerenderTransaction(
  input: PrerenderTransactionInput,
  submittedAt: bigint,
): RenderedTransaction | undefined {
  const shape = transactionShape(input.wf);
  if (!shape) return undefined;
  const ledgerEffectiveTime = chooseLedgerTime(input.times, submittedAt, input.minLedgerTime);
  let effects: TransactionEffects;
  try {
    effects = buildTransactionEffects({
      consistency: shape,
      commandId: input.commandId,
      workflowId: input.workflowId,
      ledgerEffectiveTime,
      externalTransactionHash: input.externalTransactionHash,
      submission: input.submission,
    });
  } catch {
    return undefined; // the writer renders it again and reports the failure in its order
  }
  return { submittedAt, ledgerEffectiveTime, effects, dataText: JSON.stringify(effects.transaction) };
}

export interface DecidedTransaction {
  event: NewLedgerEvent<typeof TRANSACTION_COMMITTED>;
  ledgerEffectiveTime: bigint;
}

/**
 * Deduplication, then consistency, then time — on the state read inside the writer's transaction, so two submissions
 * consuming the same contract are decided one after the other. Returns the single 'TransactionCommitted' event.
 */
export function decideTransaction(input: DecideTransactionInput): DecidedTransaction {
  checkDeduplication(input.deduplication.completed, input.deduplication.period, input.now);
  const consistency = checkConsistency({
    wf: input.wf,
    synchronizerId: input.synchronizerId,
    contracts: input.contracts,
  });
  const { rendered } = input;
  const ledgerEffectiveTime = checkTimeBounds(
    input.times,
    input.now,
    input.timeConfig,
    input.minLedgerTime,
    rendered?.submittedAt,
  );
  if (rendered && rendered.ledgerEffectiveTime === ledgerEffectiveTime) {
    // The same effects as below: consistency's result depends on the transaction alone once the state has passed it.
    return { ledgerEffectiveTime, event: transactionEvent(input, rendered.effects, rendered.dataText) };
  }
  let effects;
  try {
    effects = buildTransactionEffects({
      consistency,
      commandId: input.commandId,
      workflowId: input.workflowId,
      ledgerEffectiveTime,
      externalTransactionHash: input.externalTransactionHash,
      submission: input.submission,
    });
  } catch (e) {
    if (isLedgerError(e)) throw e;
    throw failedToExecute((e as Error).message);
  }
  return { ledgerEffectiveTime, event: transactionEvent(input, effects) };
}

function transactionEvent(
  input: DecideTransactionInput,
  effects: TransactionEffects,
  dataText?: string,
): DecidedTransaction['event'] {
  return {
    type: TRANSACTION_COMMITTED,
    stream: `transaction:${input.externalTransactionHash ?? input.submission.submissionId}`,
    data: effects.transaction,
    ...(dataText !== undefined ? { dataText } : {}),
    update: {
      kind: 'Transaction',
      synchronizerId: input.synchronizerId,
      parties: effects.parties,
      commandId: input.commandId,
    },
  };
}
