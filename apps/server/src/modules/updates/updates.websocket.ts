import { Injectable, OnModuleInit } from '@nestjs/common';
import { decodeGetUpdatesRequest, getUpdatesRequestSchema } from '@ledgerline/wire';
import { UpdatesReader } from '../../streaming/update-stream';
import { WebSocketStreams } from '../../streaming/websocket-streams';

const PAGE_SIZE = 500;

/**
 * WebSockets `GET /v2/updates`, `GET /v2/updates/flats` and `GET /v2/updates/trees` (asyncapi.yaml): one
 * GetUpdatesRequest in; JsGetUpdatesResponse messages out (JsGetUpdateTreesResponse for trees), rendered by the
 * PageRenderer; served by the stream engine's WebSocket endpoints.
 */
@Injectable()
export class UpdatesWebSocket implements OnModuleInit {
  constructor(
    private readonly sockets: WebSocketStreams,
    private readonly reader: UpdatesReader,
  ) {}

  onModuleInit(): void {
    for (const [url, form] of [
      ['/v2/updates', 'flat'],
      ['/v2/updates/flats', 'flat'],
      ['/v2/updates/trees', 'tree'],
    ] as const) {
      this.sockets.addRoute({
        url,
        schema: getUpdatesRequestSchema,
        open: (claims, body) => this.reader.openText(claims, decodeGetUpdatesRequest(body), PAGE_SIZE, form),
      });
    }
  }
}
