import { Module } from '@nestjs/common';
import { PageRenderer } from './rendering/page-renderer';
import { StreamLimiter } from './stream-limiter';
import { StreamAuthorization } from './stream-authorization';
import { UpdatesReader } from './update-stream';
import { WebSocketStreams } from './websocket-streams';

/**
 * The stream engine the reading capabilities share: offset streams over the ledger (UpdatesReader), their list form
 * (collectList), per-user stream slots, ongoing authorization of open streams, and the WebSocket endpoints. It knows no
 * capability; the updates, completions, contracts and submission modules import it.
 */
@Module({
  providers: [PageRenderer, UpdatesReader, StreamLimiter, StreamAuthorization, WebSocketStreams],
  exports: [UpdatesReader, StreamLimiter, StreamAuthorization, WebSocketStreams],
})
export class StreamingModule {}
