import { Module } from '@nestjs/common';
import { ExecuteSubmissionHandler } from './commands/execute-submission.handler';
import { ExecuteAndWaitRoute } from './execute-and-wait.route';
import { InFlightSubmissions } from './in-flight-submissions';
import { ExecuteSubmissionController } from './execute-submission.controller';
import { SigningKeysCache } from './signing-keys.cache';

/** Interactive submission, execution side: executeAndWait and execute. */
@Module({
  controllers: [ExecuteSubmissionController],
  providers: [ExecuteSubmissionHandler, InFlightSubmissions, SigningKeysCache, ExecuteAndWaitRoute],
})
export class ExecuteSubmissionModule {}
