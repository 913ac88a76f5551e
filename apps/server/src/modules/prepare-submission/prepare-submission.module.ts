import { Module } from '@nestjs/common';
import { PrepareSubmissionController } from './prepare-submission.controller';
import { PrepareSubmissionHandler } from './queries/prepare-submission.handler';

@Module({
  controllers: [PrepareSubmissionController],
  providers: [PrepareSubmissionHandler],
})
export class PrepareSubmissionModule {}
