import { WallClock, type LedgerClock } from '@ledgerline/domain';

/** The reassignment knobs of the configuration (README "Reassignment"). */
export class ReassignmentSettings {
  constructor(
    /** After an unassignment, how long only its submitter may assign it. */
    readonly assignmentExclusivityTimeoutMs: number,
    /** How long a successful change id is remembered for deduplication. */
    readonly maxDeduplicationSeconds: number,
    /** The ledger's clock (exclusivity deadlines, deduplication windows). */
    readonly clock: LedgerClock = new WallClock(),
  ) {}
}
