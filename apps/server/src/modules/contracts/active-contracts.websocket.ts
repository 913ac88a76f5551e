import { Injectable, OnModuleInit } from '@nestjs/common';
import { decodeGetActiveContractsRequest, getActiveContractsRequestSchema } from '@ledgerline/wire';
import { WebSocketStreams } from '../../streaming/websocket-streams';
import { ActiveContractsReader } from './active-contracts-stream';

/** Pages of the WebSocket's snapshot reads (activations scanned per read). */
const PAGE_SIZE = 500;

/**
 * WebSocket `GET /v2/state/active-contracts` (asyncapi.yaml): the client sends one GetActiveContractsRequest; the server
 * sends one JsGetActiveContractsResponse per entry (or one JsCantonError) and closes when the snapshot is exhausted.
 * Served by the stream engine's WebSocket endpoints: the same authentication, stream slots, message limits and back-pressure.
 */
@Injectable()
export class ActiveContractsWebSocket implements OnModuleInit {
  constructor(
    private readonly sockets: WebSocketStreams,
    private readonly reader: ActiveContractsReader,
  ) {}

  onModuleInit(): void {
    this.sockets.addRoute({
      url: '/v2/state/active-contracts',
      schema: getActiveContractsRequestSchema,
      open: async (claims, body) =>
        this.reader.text(await this.reader.snapshot(claims, decodeGetActiveContractsRequest(body)), PAGE_SIZE),
    });
  }
}
