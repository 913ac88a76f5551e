import { hash } from 'node:crypto';
import { ErrorCategories as C, invalidField, LedgerError, LedgerErrorInit } from '../errors';
import { isoDuration } from './time-bounds';

/**
 * Command deduplication (Canton's DeduplicationPeriodValidator, ledger-api-core: ledger/api/validation/, and
 * CommandDeduplicationError, participant: sync/).
 * The change id is (userId, actAs, commandId) — actAs and commandId from the
 * prepared transaction's submitter info. A change that already succeeded within the deduplication period is a
 * DUPLICATE_COMMAND; the same change while another submission of it is in flight is SUBMISSION_ALREADY_IN_FLIGHT.
 */

/** The deduplication window: successes recorded after `sinceMicros` (duration) or after ledger offset `afterOffset`. */
export type DeduplicationPeriod = { kind: 'duration'; micros: bigint } | { kind: 'offset'; afterOffset: number };

/** A recorded success of a change. */
export interface CompletedChange {
  completionOffset: number;
  recordTimeMicros: bigint;
  submissionId: string;
}

/** Stable id of a change: SHA-256 over userId, the sorted, de-duplicated actAs parties and the command id. */
export function changeIdOf(userId: string, actAs: readonly string[], commandId: string): string {
  const parties = [...new Set(actAs)].sort();
  return hash('sha256', JSON.stringify([userId, parties, commandId]), 'hex');
}

const negativeOffset = (offset: string) =>
  new LedgerError(
    'NEGATIVE_OFFSET',
    C.InvalidIndependentOfSystemState,
    `Offset ${offset} in deduplication_period is a negative integer: the offset has to be either a positive integer (>0) or not defined at all`,
    {
      context: { field_name: 'deduplication_period' },
    },
  );

const invalidPeriod = (msg: string, init: LedgerErrorInit) =>
  new LedgerError(
    'INVALID_DEDUPLICATION_PERIOD',
    C.InvalidGivenCurrentSystemStateOther,
    `The submitted command had an invalid deduplication period: ${msg}`,
    init,
  );

/**
 * `deduplicationPeriod` as the JSON API carries it: `{"Empty":{}}` (→ the maximum duration), `{"DeduplicationDuration":
 * {"value":{"seconds":…,"nanos":…}}}` or `{"DeduplicationOffset":{"value":<int64>}}`. The wire layer has already checked
 * the shape; this checks the values: a negative duration is INVALID_FIELD, one beyond the maximum
 * INVALID_DEDUPLICATION_PERIOD (context `longest_duration`), a negative offset NEGATIVE_OFFSET.
 */
export function validateDeduplicationPeriod(
  period: { kind: 'empty' } | { kind: 'duration'; seconds: bigint; nanos: number } | { kind: 'offset'; offset: bigint },
  maxMicros: bigint,
): DeduplicationPeriod {
  switch (period.kind) {
    case 'empty':
      return { kind: 'duration', micros: maxMicros };
    case 'duration': {
      const micros = period.seconds * 1_000_000n + BigInt(Math.trunc(period.nanos / 1000));
      if (period.seconds < 0n || period.nanos < 0)
        throw invalidField('deduplication_period', 'Duration must be positive');
      if (micros > maxMicros) {
        throw invalidPeriod(
          `The given deduplication duration of ${isoDuration(micros)} exceeds the maximum deduplication duration of ${isoDuration(maxMicros)}`,
          { context: { longest_duration: isoDuration(maxMicros) } },
        );
      }
      return { kind: 'duration', micros };
    }
    case 'offset':
      if (period.offset < 0n) throw negativeOffset(period.offset.toString());
      return {
        kind: 'offset',
        afterOffset: period.offset > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(period.offset),
      };
  }
}

export const duplicateCommand = (completed: CompletedChange) =>
  new LedgerError(
    'DUPLICATE_COMMAND',
    C.InvalidGivenCurrentSystemStateResourceExists,
    'A command with the given command id has already been successfully processed',
    {
      context: {
        completion_offset: String(completed.completionOffset),
        existing_submission_id: completed.submissionId,
      },
      definiteAnswer: false,
    },
  );

/** Another submission of the change is in flight (the participant's in-flight tracker: TransactionProcessor.scala). */
export const submissionAlreadyInFlight = (changeId: string, existingSubmissionId: string) =>
  new LedgerError(
    'SUBMISSION_ALREADY_IN_FLIGHT',
    C.ContentionOnSharedResources,
    'The submission is already in-flight',
    {
      context: { change_id: changeId, existing_submission_id: existingSubmissionId },
      definiteAnswer: false,
    },
  );

/** The same change and submission id is already waited for (the command tracker: SubmissionTracker.scala). */
export const submissionAlreadyTracked = (changeId: string, submissionId: string) =>
  new LedgerError(
    'SUBMISSION_ALREADY_IN_FLIGHT',
    C.ContentionOnSharedResources,
    'A submission with the given change ID (user ID, command ID, actAs) and submission ID is already in flight',
    { context: { change_id: changeId, submission_id: submissionId }, definiteAnswer: false },
  );

/** Throws DUPLICATE_COMMAND when the change already succeeded inside the period ending at `now`. */
export function checkDeduplication(
  completed: CompletedChange | undefined,
  period: DeduplicationPeriod,
  now: bigint,
): void {
  if (!completed) return;
  const inside =
    period.kind === 'duration'
      ? completed.recordTimeMicros >= now - period.micros
      : completed.completionOffset > period.afterOffset;
  if (inside) throw duplicateCommand(completed);
}
