import { Injectable } from '@nestjs/common';
import { lockedContracts, submissionAlreadyInFlight, submissionAlreadyTracked } from '@ledgerline/domain';

/**
 * Submissions of this instance in flight (transactions and reassignments), in Canton's layers:
 * - `track`: the command tracker of the endpoints that wait for the outcome (submit-and-wait and its variants,
 *   executeAndWait(ForTransaction), submit-and-wait-for-reassignment): the same change and submission id tracked twice
 *   (Canton's SubmissionTracker).
 * - `register`: the participant's in-flight submission tracker, which every submission passes (async/submit and execute
 *   included): another submission of the same change meanwhile (Canton's InFlightSubmissionTracker.register, which
 *   fails before anything is registered: ProtocolProcessor.submitWithTracking).
 * Both refuse with SUBMISSION_ALREADY_IN_FLIGHT, a synchronous error: the call fails, no completion, the ledger end
 *   does not move.
 * - `lock`: the input contracts a registered submission consumes until its outcome; another submission using one of
 *   them meanwhile is LOCAL_VERDICT_LOCKED_CONTRACTS, decided after hand-over, so the caller turns it into a rejected
 *   completion (Canton's confirmers).
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
    if (this.tracked.has(key)) throw submissionAlreadyTracked(changeId, submissionId);
    this.tracked.add(key);
    return once(() => this.tracked.delete(key));
  }

  /** Registers the submission's change or throws; returns the release function (call it once the outcome is known). */
  register(changeId: string, submissionId: string): () => void {
    const running = this.changes.get(changeId);
    if (running !== undefined) throw submissionAlreadyInFlight(changeId, running);
    this.changes.set(changeId, submissionId);
    return once(() => this.changes.delete(changeId));
  }

  /**
   * Locks the contracts a registered submission consumes, or throws if one of its inputs is locked; returns the release
   * function.
   */
  lock(changeId: string, inputs: readonly string[], consumed: readonly string[]): () => void {
    const locked = inputs.filter((cid) => this.locks.has(cid));
    if (locked.length) throw lockedContracts(locked);
    for (const cid of consumed) this.locks.set(cid, changeId);
    return once(() => {
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
