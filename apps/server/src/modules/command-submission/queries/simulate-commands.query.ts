import type { Claims, CommandsRequest, TransactionFormat } from '@ledgerline/domain';

/**
 * POST /v2/commands/simulate: a dry run of submit-and-wait-for-transaction at the ledger end, or at `atOffset`. Reads the
 * ledger; writes nothing.
 */
export class SimulateCommandsQuery {
  constructor(
    readonly claims: Claims,
    readonly request: CommandsRequest,
    readonly transactionFormat: TransactionFormat | null,
    readonly atOffset: number | null,
    /** The request's trace id, which a reported error carries. */
    readonly traceId: string,
  ) {}
}
