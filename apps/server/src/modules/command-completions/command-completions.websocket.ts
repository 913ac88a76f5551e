import { Injectable, OnModuleInit } from '@nestjs/common';
import {
  completionStreamRequestSchema,
  decodeCompletionStreamRequest,
  decodeGetCompletionsRequest,
  getCompletionsRequestSchema,
} from '@ledgerline/wire';
import { WebSocketStreams } from '../../streaming/websocket-streams';
import { CompletionsReader } from './completions.reader';

const PAGE_SIZE = 500;

/**
 * WebSockets `GET /v2/commands/completions` and `GET /v2/commands/command-completions` (asyncapi.yaml): one
 * CompletionStreamRequest, or GetCompletionsRequest, in; CompletionStreamResponse messages out (OffsetCheckpoints
 * included), tailing; served like the update streams (same authentication, limits and back-pressure).
 */
@Injectable()
export class CommandCompletionsWebSocket implements OnModuleInit {
  constructor(
    private readonly webSockets: WebSocketStreams,
    private readonly reader: CompletionsReader,
  ) {}

  onModuleInit(): void {
    this.webSockets.addRoute({
      url: '/v2/commands/completions',
      schema: completionStreamRequestSchema,
      open: (claims, body) =>
        this.reader.open(claims, { form: 'stream', request: decodeCompletionStreamRequest(body) }, PAGE_SIZE, (e) =>
          JSON.stringify(e),
        ),
    });
    this.webSockets.addRoute({
      url: '/v2/commands/command-completions',
      schema: getCompletionsRequestSchema,
      open: (claims, body) =>
        this.reader.open(claims, { form: 'get', request: decodeGetCompletionsRequest(body) }, PAGE_SIZE, (e) =>
          JSON.stringify(e),
        ),
    });
  }
}
