import type { Claims, TransactionFormat } from '@ledgerline/domain';
import type { DecodedExecuteSubmission } from '@ledgerline/wire';

/**
 * executeAndWait (`mode: 'wait'`), executeAndWaitForTransaction (`'transaction'`, with its optional format) or execute
 * (`'async'`: the 50-signatures cap, an empty answer, and a rejection at commit is only a completion).
 */
export class ExecuteSubmissionCommand {
  constructor(
    readonly claims: Claims,
    readonly request: DecodedExecuteSubmission,
    readonly mode: 'wait' | 'async' | 'transaction',
    readonly transactionFormat: TransactionFormat | null = null,
  ) {}
}

/** `{updateId, completionOffset}` (wait), `{transaction}` (transaction) or `{}` (async). */
export type ExecuteSubmissionAnswer = Record<string, unknown>;
