import type { Claims } from '@ledgerline/domain';
import type { DecodedExecuteSubmission } from '@ledgerline/wire';

/** executeAndWait (`mode: 'wait'`) or execute (`mode: 'async'`: same pipeline, the 50-signatures cap, an empty answer). */
export class ExecuteSubmissionCommand {
  constructor(
    readonly claims: Claims,
    readonly request: DecodedExecuteSubmission,
    readonly mode: 'wait' | 'async',
  ) {}
}

export interface ExecuteSubmissionResult {
  updateId: string;
  completionOffset: number;
}
