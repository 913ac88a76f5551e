import { Module } from '@nestjs/common';
import { TransactionSubmissionModule } from '../transaction-submission/transaction-submission.module';
import { ExecuteSubmissionHandler } from './commands/execute-submission.handler';
import { ExecuteAndWaitRoute } from './execute-and-wait.route';
import { ExecuteSubmissionController } from './execute-submission.controller';
import { SigningKeysCache } from './signing-keys.cache';

/** Interactive submission, execution side: executeAndWait, executeAndWaitForTransaction and execute. */
@Module({
  imports: [TransactionSubmissionModule],
  controllers: [ExecuteSubmissionController],
  providers: [ExecuteSubmissionHandler, SigningKeysCache, ExecuteAndWaitRoute],
})
export class ExecuteSubmissionModule {}
