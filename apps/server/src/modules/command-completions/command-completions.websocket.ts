import { Injectable, OnModuleInit } from '@nestjs/common';
import { completionStreamRequestSchema, decodeCompletionStreamRequest } from '@ledgerline/wire';
import { UpdatesWebSocket } from '../updates/updates.websocket';
import { CompletionsReader } from './completions.reader';

const PAGE_SIZE = 500;

/**
 * WebSocket `GET /v2/commands/completions` (asyncapi.yaml): one CompletionStreamRequest in, CompletionStreamResponse
 * messages out (OffsetCheckpoints included), tailing; served like the update streams (same authentication, limits and
 * back-pressure).
 */
@Injectable()
export class CommandCompletionsWebSocket implements OnModuleInit {
  constructor(
    private readonly webSockets: UpdatesWebSocket,
    private readonly reader: CompletionsReader,
  ) {}

  onModuleInit(): void {
    this.webSockets.addChannel({
      url: '/v2/commands/completions',
      schema: completionStreamRequestSchema,
      open: (claims, body) => this.reader.open(claims, decodeCompletionStreamRequest(body), PAGE_SIZE, (e) => JSON.stringify(e)),
    });
  }
}
