import { Module } from '@nestjs/common';
import { StreamingModule } from '../../streaming/streaming.module';
import { ActiveContractsPageRoute } from './active-contracts-page.route';
import { ActiveContractsReader } from './active-contracts-stream';
import { ActiveContractsWebSocket } from './active-contracts.websocket';
import { ContractsController } from './contracts.controller';
import {
  GetActiveContractsPageHandler,
  GetContractHandler,
  GetEventsByContractIdHandler,
  ListActiveContractsHandler,
} from './queries/contracts-query.handlers';

/** Reading contracts: the active contract set (list, page, WebSocket), a contract's events, a contract's payload. */
@Module({
  imports: [StreamingModule],
  controllers: [ContractsController],
  providers: [
    ActiveContractsReader,
    ListActiveContractsHandler,
    GetActiveContractsPageHandler,
    GetEventsByContractIdHandler,
    GetContractHandler,
    ActiveContractsPageRoute,
    ActiveContractsWebSocket,
  ],
})
export class ContractsModule {}
