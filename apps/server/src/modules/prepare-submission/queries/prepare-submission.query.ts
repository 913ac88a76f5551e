import type { Claims, PrepareRequest } from '@ledgerline/domain';

/** POST /v2/interactive-submission/prepare, decoded. Reads the ledger; writes nothing. */
export class PrepareSubmissionQuery {
  constructor(
    readonly claims: Claims,
    readonly request: PrepareRequest,
  ) {}
}
