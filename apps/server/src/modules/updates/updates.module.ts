import { Module } from '@nestjs/common';
import { StreamingModule } from '../../streaming/streaming.module';
import { PruneLedgerHandler } from './commands/prune.command';
import {
  GetTransactionByIdHandler,
  GetTransactionByOffsetHandler,
  GetTransactionTreeByIdHandler,
  GetTransactionTreeByOffsetHandler,
  GetUpdateByHashHandler,
  GetUpdateByIdHandler,
  GetUpdateByOffsetHandler,
  GetUpdatesPageHandler,
  ListUpdatesHandler,
} from './queries/update-query.handlers';
import { TransactionByIdRoute } from './transaction-by-id.route';
import { UpdatesController } from './updates.controller';
import { UpdatesWebSocket } from './updates.websocket';

/** Reading the ledger: update lists, WebSocket streams, transaction lookup, pruning (over the stream engine). */
@Module({
  imports: [StreamingModule],
  controllers: [UpdatesController],
  providers: [
    ListUpdatesHandler,
    GetTransactionByIdHandler,
    GetUpdateByIdHandler,
    GetUpdateByHashHandler,
    GetUpdateByOffsetHandler,
    GetTransactionByOffsetHandler,
    GetTransactionTreeByIdHandler,
    GetTransactionTreeByOffsetHandler,
    GetUpdatesPageHandler,
    PruneLedgerHandler,
    UpdatesWebSocket,
    TransactionByIdRoute,
  ],
})
export class UpdatesModule {}
