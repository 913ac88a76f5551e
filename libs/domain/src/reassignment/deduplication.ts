import { parseIsoMicros } from '../ledger/time';
import { changeIdOf, checkDeduplication, type CompletedChange } from '../ledger-model/deduplication';

/**
 * Command deduplication of reassignment submissions, with the rules and errors every command of the service shares
 * (ledger-model/deduplication.ts): the change id is (userId, [submitter], commandId); its last success within the
 * deduplication period makes a resubmission a DUPLICATE_COMMAND. Pure.
 */
export interface ReassignmentChange {
  userId: string;
  submitter: string;
  commandId: string;
}

export const reassignmentChangeId = (c: ReassignmentChange): string => changeIdOf(c.userId, [c.submitter], c.commandId);

/** The last successful submission of a change id, as the reassignment projection records it. */
export interface ReassignmentCompletion {
  submissionId: string;
  completionOffset: number;
  /** ISO-8601 µs */
  recordTime: string;
}

/** Rejects a change id whose last success lies within `periodMicros` before `nowMicros`. */
export function checkReassignmentDeduplication(
  previous: ReassignmentCompletion | null,
  nowMicros: bigint,
  periodMicros: bigint,
): void {
  const completed: CompletedChange | undefined = previous
    ? {
        completionOffset: previous.completionOffset,
        submissionId: previous.submissionId,
        recordTimeMicros: parseIsoMicros(previous.recordTime),
      }
    : undefined;
  checkDeduplication(completed, { kind: 'duration', micros: periodMicros }, nowMicros);
}
