import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { TransactionSubmissionService } from '../../transaction-submission/transaction-submission.service';
import { SubmittedTransactions } from '../../transaction-submission/submitted-transactions';
import { CommandsInterpretation } from '../commands-interpretation';
import { SubmitCommandsCommand } from './submit-commands.command';

/**
 * Commands of local parties: their interpretation (CommandsInterpretation: the JSON layer, authorization, validation,
 * interpretation, routing) → the submission pipeline shared with executeAndWait. Everything up to the pipeline answers
 * the request directly and leaves no completion.
 */
@CommandHandler(SubmitCommandsCommand)
export class SubmitCommandsHandler implements ICommandHandler<SubmitCommandsCommand, Record<string, unknown>> {
  constructor(
    private readonly interpretation: CommandsInterpretation,
    private readonly pipeline: TransactionSubmissionService,
    private readonly transactions: SubmittedTransactions,
  ) {}

  async execute({ claims, request, mode, transactionFormat }: SubmitCommandsCommand): Promise<Record<string, unknown>> {
    const i = await this.interpretation.interpret(claims, request, {
      transactionFormat,
      answersTransaction: mode === 'transaction',
      tracked: mode !== 'async',
      ledger: () => Promise.resolve(this.interpretation.current),
    });
    // 6. The pipeline shared with executeAndWait.
    const r = await this.pipeline.submit(i.submission);
    if (mode === 'async') return {};
    if (r.rejection) throw r.rejection;
    if (i.format) return this.transactions.transaction(r.updateId, i.format);
    if (mode === 'tree') return this.transactions.tree(r.updateId, i.actAs);
    return { updateId: r.updateId, completionOffset: r.completionOffset };
  }
}
