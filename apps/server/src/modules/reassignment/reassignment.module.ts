import { Module } from '@nestjs/common';
import { LedgerRuntime } from '../../infrastructure/runtime';
import { ReassignmentSettings } from './commands/reassignment-settings';
import { SubmitReassignmentHandler } from './commands/submit-reassignment.handler';
import { ReassignmentController } from './reassignment.controller';
import { SubmissionPipelineModule } from '../submission-pipeline/submission-pipeline.module';

@Module({
  imports: [SubmissionPipelineModule],
  controllers: [ReassignmentController],
  providers: [
    SubmitReassignmentHandler,
    {
      provide: ReassignmentSettings,
      useFactory: (rt: LedgerRuntime) => new ReassignmentSettings(rt.config.assignmentExclusivityTimeoutMs, rt.config.maxDeduplicationSeconds, rt.clock),
      inject: [LedgerRuntime],
    },
  ],
})
export class ReassignmentModule {}
