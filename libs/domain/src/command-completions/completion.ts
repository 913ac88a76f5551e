import type { LedgerEvent } from '../ledger/ledger-event';
import { REASSIGNMENT_COMMITTED, TRANSACTION_COMMITTED } from '../ledger/updates';
import { COMMAND_REJECTED, type StoredDeduplicationPeriod } from './events';
import { OK_STATUS, statusOf, type JsStatus } from './status';

/** A command completion (Completion of the JSON API), before `actAs` is cut down to a request's parties. */
export interface Completion {
  commandId: string;
  status: JsStatus;
  updateId: string;
  userId: string;
  actAs: string[];
  submissionId: string;
  deduplicationPeriod: StoredDeduplicationPeriod;
  traceContext: null;
  offset: number;
  synchronizerTime: { synchronizerId: string; recordTime: string };
  paidTrafficCost: number;
  /** Base64 of the externally signed hash (multihash bytes); '' for commands of local parties. */
  transactionHash: string;
}

/** `{"completionResponse": …}`: a completion or an OffsetCheckpoint (the oneof wrapped in `value`). */
export type CompletionStreamResponse =
  | { completionResponse: { Completion: { value: Completion } } }
  | {
      completionResponse: {
        OffsetCheckpoint: {
          value: { offset: number; synchronizerTimes: Array<{ synchronizerId: string; recordTime: string }> };
        };
      };
    };

const NO_PERIOD: StoredDeduplicationPeriod = { Empty: {} };

/**
 * The completion an event of the log is, if any: a transaction or reassignment that carries its submission (accepted), or
 * a CommandRejected event (rejected, at its own offset). A pure function of the event (the completions projection).
 */
export function completionOf(event: LedgerEvent): Completion | null {
  const h = event.update;
  if (event.type === TRANSACTION_COMMITTED && h) {
    const tx = event.data;
    if (!tx.submission) return null;
    return {
      commandId: tx.commandId,
      status: OK_STATUS,
      updateId: h.updateId,
      userId: tx.submission.userId,
      actAs: tx.submission.actAs,
      submissionId: tx.submission.submissionId,
      deduplicationPeriod: tx.submission.deduplicationPeriod ?? NO_PERIOD,
      traceContext: null,
      offset: h.offset,
      synchronizerTime: { synchronizerId: h.synchronizerId, recordTime: h.recordTime },
      paidTrafficCost: 0,
      transactionHash: tx.externalTransactionHash
        ? Buffer.from(tx.externalTransactionHash, 'hex').toString('base64')
        : '',
    };
  }
  if (event.type === REASSIGNMENT_COMMITTED && h) {
    const r = event.data;
    if (!r.submission) return null;
    return {
      commandId: r.commandId,
      status: OK_STATUS,
      updateId: h.updateId,
      userId: r.submission.userId,
      actAs: [r.submission.submitter],
      submissionId: r.submission.submissionId,
      deduplicationPeriod: NO_PERIOD,
      traceContext: null,
      offset: h.offset,
      synchronizerTime: { synchronizerId: h.synchronizerId, recordTime: h.recordTime },
      paidTrafficCost: 0,
      transactionHash: '',
    };
  }
  if (event.type === COMMAND_REJECTED && event.offset !== undefined) {
    const r = event.data;
    return {
      commandId: r.commandId,
      status: statusOf(r.error, r.submissionId),
      updateId: '',
      userId: r.userId,
      actAs: r.actAs,
      submissionId: r.submissionId,
      deduplicationPeriod: r.deduplicationPeriod,
      traceContext: null,
      offset: event.offset,
      synchronizerTime: { synchronizerId: r.synchronizerId, recordTime: event.recordedAt },
      paidTrafficCost: 0,
      transactionHash: r.transactionHash ? Buffer.from(r.transactionHash, 'hex').toString('base64') : '',
    };
  }
  return null;
}

/** The completion as a request for `parties` sees it: `actAs` cut down to them (null: every party, `actAs` whole). */
export function completionResponse(c: Completion, parties: ReadonlySet<string> | null): CompletionStreamResponse {
  return {
    completionResponse: { Completion: { value: parties ? { ...c, actAs: c.actAs.filter((p) => parties.has(p)) } : c } },
  };
}

export function completionCheckpoint(
  offset: number,
  synchronizerTimes: Array<{ synchronizerId: string; recordTime: string }>,
): CompletionStreamResponse {
  return { completionResponse: { OffsetCheckpoint: { value: { offset, synchronizerTimes } } } };
}
