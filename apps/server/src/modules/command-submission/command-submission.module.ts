import { Module } from '@nestjs/common';
import { TransactionSubmissionModule } from '../transaction-submission/transaction-submission.module';
import { SubmitCommandsHandler } from './commands/submit-commands.handler';
import { CommandSubmissionRoutes } from './command-submission.routes';
import { SubmitterHostingCache } from './submitter-hosting.cache';

/** Command submission for local parties: submit-and-wait and its variants, async submit. */
@Module({
  imports: [TransactionSubmissionModule],
  providers: [SubmitCommandsHandler, CommandSubmissionRoutes, SubmitterHostingCache],
})
export class CommandSubmissionModule {}
