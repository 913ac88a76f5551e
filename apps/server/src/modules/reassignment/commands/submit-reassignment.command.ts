import type { Claims, RawReassignmentCommands, EventFormat } from '@ledgerline/domain';

/** The body of POST /v2/commands/submit-and-wait-for-reassignment (and, without eventFormat, of the async variant). */
export interface ReassignmentRequestBody {
  reassignmentCommands?: RawReassignmentCommands | null;
  eventFormat?: EventFormat | null;
}

/**
 * One reassignment submission: validated, decided and committed as one ledger update. `wait`: the caller waits for the
 * outcome (submit-and-wait-for-reassignment; a rejection at commit is its error), else (async/submit-reassignment) the
 * outcome is only its completion.
 */
export class SubmitReassignmentCommand {
  constructor(
    readonly claims: Claims,
    readonly body: ReassignmentRequestBody,
    readonly wait = true,
  ) {}
}
