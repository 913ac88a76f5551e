import type { LedgerError } from '../errors';
import type { NewEvent } from '../ledger/events';
import type { DeduplicationPeriod } from '../ledger-model/deduplication';
import { storedErrorOf, type StoredError } from './status';

/**
 * A submission rejected after it was accepted (a duplicate found at commit, a lost race, a time bound): the event-log type
 * of a rejected completion. It takes a ledger offset of its own (`ownOffset`) but is no ledger update. Accepted
 * completions are the committed updates themselves (a transaction or reassignment that carries its submission).
 */
export const COMMAND_REJECTED = 'CommandRejected';

/** Deduplication period as a completion reports it (the JSON API's oneof). */
export type StoredDeduplicationPeriod =
  | { DeduplicationDuration: { value: { seconds: number; nanos: number } } }
  | { DeduplicationOffset: { value: number } }
  | { Empty: Record<string, never> };

/** data of a 'CommandRejected' event. */
export interface StoredRejection {
  commandId: string;
  userId: string;
  actAs: string[];
  submissionId: string;
  synchronizerId: string;
  deduplicationPeriod: StoredDeduplicationPeriod;
  error: StoredError;
  /** Hex multihash of the externally signed hash (interactive submissions); absent otherwise. */
  transactionHash?: string;
}

/** The reported form of a deduplication period. */
export function storedDeduplicationPeriod(p: DeduplicationPeriod): StoredDeduplicationPeriod {
  if (p.kind === 'offset') return { DeduplicationOffset: { value: p.afterOffset } };
  return {
    DeduplicationDuration: {
      value: { seconds: Number(p.micros / 1_000_000n), nanos: Number(p.micros % 1_000_000n) * 1000 },
    },
  };
}

export function commandRejectedEvent(r: StoredRejection): NewEvent<typeof COMMAND_REJECTED, StoredRejection> {
  return { type: COMMAND_REJECTED, stream: `completion:${r.userId}`, data: r, ownOffset: true };
}

/** What a rejected completion says about its submission. */
export interface RejectedSubmission {
  commandId: string;
  userId: string;
  actAs: readonly string[];
  submissionId: string;
  synchronizerId: string;
  deduplicationPeriod: DeduplicationPeriod;
  /** Hex multihash of the externally signed hash; null or absent for commands of local parties. */
  externalTransactionHash?: string | null;
}

/**
 * The CommandRejected event of a submission rejected with `error`. A duplicate reports its deduplication period as the
 * offset just before the earlier completion (as Canton's DuplicateCommandReject does).
 */
export function rejectionEvent(
  s: RejectedSubmission,
  error: LedgerError,
): NewEvent<typeof COMMAND_REJECTED, StoredRejection> {
  const earlier = error.code === 'DUPLICATE_COMMAND' ? Number(error.context.completion_offset) : NaN;
  return commandRejectedEvent({
    commandId: s.commandId,
    userId: s.userId,
    actAs: [...s.actAs],
    submissionId: s.submissionId,
    synchronizerId: s.synchronizerId,
    deduplicationPeriod: Number.isFinite(earlier)
      ? { DeduplicationOffset: { value: Math.max(0, earlier - 1) } }
      : storedDeduplicationPeriod(s.deduplicationPeriod),
    error: storedErrorOf(error),
    ...(s.externalTransactionHash ? { transactionHash: s.externalTransactionHash } : {}),
  });
}
