import { contention, LedgerError } from '../errors';
import { ErrorCategories } from '../errors/error-category';
import { parseIsoMicros } from '../ledger/time';

/**
 * Command deduplication of reassignment submissions (behaviour.md §A.6, §F.5): the change id is (userId, submitter,
 * commandId). A change id whose last successful submission is within the deduplication period is a duplicate; one that
 * is still being processed is in flight. Pure.
 */
export interface ChangeId {
  userId: string;
  submitter: string;
  commandId: string;
}

export const changeIdKey = (c: ChangeId): string => JSON.stringify([c.userId, c.submitter, c.commandId]);

/** The last successful submission of a change id, as recorded. */
export interface Completion {
  submissionId: string;
  completionOffset: number;
  /** ISO-8601 µs */
  recordTime: string;
}

export const duplicateCommand = (previous: Completion) =>
  new LedgerError(
    'DUPLICATE_COMMAND',
    ErrorCategories.InvalidGivenCurrentSystemStateResourceExists,
    'A command with the given command id has already been successfully processed',
    {
      context: { completion_offset: String(previous.completionOffset), existing_submission_id: previous.submissionId },
      definiteAnswer: false,
    },
  );

export const submissionAlreadyInFlight = (c: ChangeId, submissionId: string) =>
  contention('SUBMISSION_ALREADY_IN_FLIGHT', 'The submission is already in-flight', {
    context: { changeId: `ChangeId(${c.userId},${c.commandId},Set(${c.submitter}))`, submissionId },
  });

/** Rejects a change id whose previous success lies within `periodMicros` of `nowMicros`. */
export function checkDeduplication(previous: Completion | null, nowMicros: bigint, periodMicros: bigint): void {
  if (previous && nowMicros < parseIsoMicros(previous.recordTime) + periodMicros) throw duplicateCommand(previous);
}
