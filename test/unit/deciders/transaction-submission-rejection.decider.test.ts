import { describe, expect, it } from 'vitest';
import { lockedContracts, rejectionEvent, type RejectedSubmission } from '@ledgerline/domain';
import { transactionSubmissionRejectionDecider } from '@ledgerline/store';
import { conflictKeysOf, spec } from '../../support/decider-spec';
import { alice, SYNC_A } from './fixtures';

const submission: RejectedSubmission = {
  commandId: 'cmd-1',
  userId: 'u1',
  actAs: [alice],
  submissionId: 's-1',
  synchronizerId: SYNC_A,
  deduplicationPeriod: { kind: 'duration', micros: 60_000_000n },
  externalTransactionHash: null,
};

describe('transaction submission rejection decider', () => {
  it('appends the rejected completion at an offset of its own and answers the error with that offset', () => {
    const error = lockedContracts(['c1']);
    spec(transactionSubmissionRejectionDecider, { ledgerEnd: 41 })
      .given(undefined)
      .when({ changeId: 'change-1', submission, error })
      .then([rejectionEvent(submission, error)], { rejection: error, completionOffset: 42 });
  });

  it("changes the change's key: a later decision on that change sees the completion", () => {
    expect(
      conflictKeysOf(transactionSubmissionRejectionDecider, {
        changeId: 'change-1',
        submission,
        error: lockedContracts(['c1']),
      }),
    ).toEqual({ reads: ['change:change-1'], writes: ['change:change-1'] });
  });
});
