import { Module } from '@nestjs/common';
import { LedgerTimeController } from './ledger-time.controller';

/** The ledger's clock over HTTP (static-time mode): /v2/admin/time. */
@Module({ controllers: [LedgerTimeController] })
export class LedgerTimeModule {}
