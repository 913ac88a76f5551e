import { Module } from '@nestjs/common';
import { ContractLookupRepository, PartiesRepository } from '@ledgerline/store';
import { InteractivePrepareController } from './interactive-prepare.controller';
import { PrepareSubmissionHandler } from './queries/prepare-submission.handler';

@Module({
  controllers: [InteractivePrepareController],
  providers: [PartiesRepository, ContractLookupRepository, PrepareSubmissionHandler],
})
export class InteractivePrepareModule {}
