import type { Claims, CommandsRequest, TransactionFormat } from '@ledgerline/domain';

/**
 * submit-and-wait (`'wait'`), -for-transaction (`'transaction'`, with its optional format), -for-transaction-tree
 * (`'tree'`) or async/submit (`'async'`: `{}` once decided; a rejection at commit is only a completion).
 */
export class SubmitCommandsCommand {
  constructor(
    readonly claims: Claims,
    readonly request: CommandsRequest,
    readonly mode: 'wait' | 'transaction' | 'tree' | 'async',
    readonly transactionFormat: TransactionFormat | null = null,
  ) {}
}
