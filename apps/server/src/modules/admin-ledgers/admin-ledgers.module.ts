import { Module } from '@nestjs/common';
import { LedgersController } from './ledgers.controller';

/** Testing admin API: ledgers hosted by this process under /ledgers/<id>. */
@Module({ controllers: [LedgersController] })
export class AdminLedgersModule {}
