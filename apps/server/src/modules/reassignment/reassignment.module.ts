import { Module } from '@nestjs/common';
import { LedgerRuntime } from '../../infrastructure/runtime';
import { ReassignmentSettings } from './commands/reassignment-settings';
import { SubmitReassignmentHandler } from './commands/submit-reassignment.handler';
import { ReassignmentController } from './reassignment.controller';
import { TransactionSubmissionModule } from '../transaction-submission/transaction-submission.module';

@Module({
  imports: [TransactionSubmissionModule],
  controllers: [ReassignmentController],
  providers: [
    SubmitReassignmentHandler,
    {
      provide: ReassignmentSettings,
      useFactory: (rt: LedgerRuntime) =>
        new ReassignmentSettings(rt.config.assignmentExclusivityTimeoutMs, rt.config.maxDeduplicationSeconds, rt.clock),
      inject: [LedgerRuntime],
    },
  ],
})
export class ReassignmentModule {}
