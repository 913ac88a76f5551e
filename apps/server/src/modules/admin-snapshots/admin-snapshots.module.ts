import { Module } from '@nestjs/common';
import { SnapshotsController } from './snapshots.controller';
import { SnapshotsService } from './snapshots.service';

/** Testing admin API: snapshots, restore, fork and reset of the ledger. */
@Module({ controllers: [SnapshotsController], providers: [SnapshotsService] })
export class AdminSnapshotsModule {}
