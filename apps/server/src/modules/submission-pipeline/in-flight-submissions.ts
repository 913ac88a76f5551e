import { Injectable } from '@nestjs/common';
import { lockedContracts, submissionAlreadyInFlight } from '@ledgerline/domain';

/**
 * Submissions of this instance between signature verification and commit: their change ids (a second submission of the
 * same change meanwhile is SUBMISSION_ALREADY_IN_FLIGHT) and the input contracts they consume (another submission using
 * one of them meanwhile is LOCAL_VERDICT_LOCKED_CONTRACTS). Saves the writer from deciding doomed work; the writer's
 * checks stay authoritative (several instances, or a contract archived while nothing is in flight here).
 */
@Injectable()
export class InFlightSubmissions {
  private readonly changes = new Map<string, string>();
  private readonly locks = new Map<string, string>();

  /** Registers the submission or throws; returns the release function (call it once the outcome is known). */
  acquire(changeId: string, submissionId: string, inputs: readonly string[], consumed: readonly string[]): () => void {
    const running = this.changes.get(changeId);
    if (running !== undefined) throw submissionAlreadyInFlight(changeId, running);
    const locked = inputs.filter((cid) => this.locks.has(cid));
    if (locked.length) throw lockedContracts(locked);
    this.changes.set(changeId, submissionId);
    for (const cid of consumed) this.locks.set(cid, changeId);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.changes.delete(changeId);
      for (const cid of consumed) if (this.locks.get(cid) === changeId) this.locks.delete(cid);
    };
  }
}
