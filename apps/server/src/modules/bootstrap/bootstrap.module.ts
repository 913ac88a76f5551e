import { Module } from '@nestjs/common';
import { BootstrapService } from './bootstrap.service';

/** The declarative bootstrap file, applied at start (main.ts) and by `ledgerctl bootstrap`. */
@Module({ providers: [BootstrapService], exports: [BootstrapService] })
export class BootstrapModule {}
