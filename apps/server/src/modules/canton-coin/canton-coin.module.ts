import { Module } from '@nestjs/common';
import { CantonCoinController } from './canton-coin.controller';
import { CantonCoinService } from './canton-coin.service';

/** The Canton Coin development profile (LEDGER_CANTON_COIN=dev): set-up, DSO and validator automation, Splice endpoints. */
@Module({ controllers: [CantonCoinController], providers: [CantonCoinService], exports: [CantonCoinService] })
export class CantonCoinModule {}
