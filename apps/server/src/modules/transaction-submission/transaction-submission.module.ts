import { Module } from '@nestjs/common';
import { StreamingModule } from '../../streaming/streaming.module';
import { InFlightSubmissions } from './in-flight-submissions';
import { TransactionSubmissionService } from './transaction-submission.service';
import { SubmittedTransactions } from './submitted-transactions';

/**
 * The transaction submission pipeline shared by interactive submission and command submission, and their answers; the
 * in-flight checks, which reassignment submission shares.
 */
@Module({
  imports: [StreamingModule],
  providers: [TransactionSubmissionService, InFlightSubmissions, SubmittedTransactions],
  exports: [TransactionSubmissionService, SubmittedTransactions, InFlightSubmissions],
})
export class TransactionSubmissionModule {}
