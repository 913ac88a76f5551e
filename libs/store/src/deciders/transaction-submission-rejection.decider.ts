import { rejectionEvent, type LedgerError, type RejectedSubmission } from '@ledgerline/domain';
import { changes, type Decider } from '../writer';
import type { TransactionSubmissionResult } from './transaction-submission.decider';

/** A submission accepted for processing and then rejected before the writer (its contracts locked by another in flight). */
export interface RejectTransactionSubmission {
  /** The change it would have completed: its rejected completion is that change's latest one. */
  changeId: string;
  submission: RejectedSubmission;
  error: LedgerError;
}

/** Records the rejected completion of a submission: a CommandRejected event at an offset of its own. Reads no state. */
export const transactionSubmissionRejectionDecider: Decider<
  RejectTransactionSubmission,
  { changeId: string },
  undefined,
  TransactionSubmissionResult
> = {
  name: 'transaction-submission-rejection',
  key: ({ changeId }) => ({ changeId }),
  conflicts: { changeId: changes('change') },
  load: async (_db, keys) => keys.map(() => undefined),
  decide: (_state, { submission, error }) => ({
    events: [rejectionEvent(submission, error)],
    answer: ([rejected]) => ({ rejection: error, completionOffset: rejected.offset! }),
  }),
};
