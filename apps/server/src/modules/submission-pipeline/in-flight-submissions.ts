import { Injectable } from '@nestjs/common';
import { lockedContracts, submissionAlreadyInFlight } from '@ledgerline/domain';

/**
 * Submissions of this instance in flight (transactions and reassignments), in Canton's two layers:
 * - `track`: the command tracker of the endpoints that wait for the outcome (submit-and-wait and its variants,
 *   executeAndWait(ForTransaction), submit-and-wait-for-reassignment). The same change and submission id tracked twice is
 *   SUBMISSION_ALREADY_IN_FLIGHT before anything is handed over: a synchronous error, no completion (Canton's
 *   SubmissionTracker).
 * - `acquire`: the participant's checks of every handed-over submission until its outcome: its change id (another
 *   submission of the same change meanwhile is SUBMISSION_ALREADY_IN_FLIGHT) and the input contracts it consumes (another
 *   submission using one of them meanwhile is LOCAL_VERDICT_LOCKED_CONTRACTS). Decided after hand-over, so the caller
 *   turns them into rejected completions (Canton's TransactionProcessor and confirmers).
 * Saves the writer from deciding doomed work; the writer's checks stay authoritative (several instances, or a contract
 * archived while nothing is in flight here).
 */
@Injectable()
export class InFlightSubmissions {
  private readonly tracked = new Set<string>();
  private readonly changes = new Map<string, string>();
  private readonly locks = new Map<string, string>();

  /** Registers a waiting submission with the tracker or throws; returns the release function. */
  track(changeId: string, submissionId: string): () => void {
    const key = `${changeId} ${submissionId}`;
    if (this.tracked.has(key)) throw submissionAlreadyInFlight(changeId, submissionId);
    this.tracked.add(key);
    return once(() => this.tracked.delete(key));
  }

  /** Registers the submission or throws; returns the release function (call it once the outcome is known). */
  acquire(changeId: string, submissionId: string, inputs: readonly string[] = [], consumed: readonly string[] = []): () => void {
    const running = this.changes.get(changeId);
    if (running !== undefined) throw submissionAlreadyInFlight(changeId, running);
    const locked = inputs.filter((cid) => this.locks.has(cid));
    if (locked.length) throw lockedContracts(locked);
    this.changes.set(changeId, submissionId);
    for (const cid of consumed) this.locks.set(cid, changeId);
    return once(() => {
      this.changes.delete(changeId);
      for (const cid of consumed) if (this.locks.get(cid) === changeId) this.locks.delete(cid);
    });
  }
}

function once(f: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    f();
  };
}
