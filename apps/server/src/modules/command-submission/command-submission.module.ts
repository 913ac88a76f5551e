import { Module } from '@nestjs/common';
import { TransactionSubmissionModule } from '../transaction-submission/transaction-submission.module';
import { SubmitCommandsHandler } from './commands/submit-commands.handler';
import { CommandSubmissionRoutes } from './command-submission.routes';
import { SubmitterHostingCache } from './submitter-hosting.cache';
import { CommandsInterpretation } from './commands-interpretation';
import { SimulateCommandsHandler } from './queries/simulate-commands.handler';

/** Command submission for local parties: submit-and-wait and its variants, async submit, and their dry run (simulate). */
@Module({
  imports: [TransactionSubmissionModule],
  providers: [
    CommandsInterpretation,
    SubmitCommandsHandler,
    SimulateCommandsHandler,
    CommandSubmissionRoutes,
    SubmitterHostingCache,
  ],
})
export class CommandSubmissionModule {}
