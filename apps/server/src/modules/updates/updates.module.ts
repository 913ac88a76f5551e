import { Module } from '@nestjs/common';
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
import { PageRenderer } from './rendering/page-renderer';
import { StreamLimiter } from './stream-limiter';
import { StreamAuthorization } from './stream-authorization';
import { TransactionByIdRoute } from './transaction-by-id.route';
import { UpdatesReader } from './update-stream';
import { UpdatesController } from './updates.controller';
import { UpdatesWebSocket } from './updates.websocket';

/** Reading the ledger: update lists, WebSocket streams, transaction lookup, pruning. */
@Module({
  controllers: [UpdatesController],
  providers: [
    PageRenderer,
    UpdatesReader,
    StreamLimiter,
    StreamAuthorization,
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
  exports: [UpdatesReader, StreamLimiter, StreamAuthorization, UpdatesWebSocket],
})
export class UpdatesModule {}
