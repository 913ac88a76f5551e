import { Module } from '@nestjs/common';
import { ContractLookupRepository, PartiesRepository } from '@ledgerline/store';
import { PrepareSubmissionController } from './prepare-submission.controller';
import { PrepareSubmissionHandler } from './queries/prepare-submission.handler';

@Module({
  controllers: [PrepareSubmissionController],
  providers: [PartiesRepository, ContractLookupRepository, PrepareSubmissionHandler],
})
export class PrepareSubmissionModule {}
