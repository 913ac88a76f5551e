import { Module } from '@nestjs/common';
import { SubmissionPipelineModule } from '../submission-pipeline/submission-pipeline.module';
import { ExecuteSubmissionHandler } from './commands/execute-submission.handler';
import { ExecuteAndWaitRoute } from './execute-and-wait.route';
import { ExecuteSubmissionController } from './execute-submission.controller';
import { SigningKeysCache } from './signing-keys.cache';

/** Interactive submission, execution side: executeAndWait, executeAndWaitForTransaction and execute. */
@Module({
  imports: [SubmissionPipelineModule],
  controllers: [ExecuteSubmissionController],
  providers: [ExecuteSubmissionHandler, SigningKeysCache, ExecuteAndWaitRoute],
})
export class ExecuteSubmissionModule {}
