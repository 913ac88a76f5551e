import type { Claims, RawReassignmentCommands, EventFormat } from '@ledgerline/domain';

/** The body of POST /v2/commands/submit-and-wait-for-reassignment (and, without eventFormat, of the async variant). */
export interface ReassignmentRequestBody {
  reassignmentCommands?: RawReassignmentCommands | null;
  eventFormat?: EventFormat | null;
}

/** One reassignment submission: validated, decided and committed as one ledger update. */
export class SubmitReassignmentCommand {
  constructor(
    readonly claims: Claims,
    readonly body: ReassignmentRequestBody,
  ) {}
}
