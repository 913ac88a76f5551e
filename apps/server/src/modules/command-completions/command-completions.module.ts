import { Module } from '@nestjs/common';
import { StreamingModule } from '../../streaming/streaming.module';
import { CommandCompletionsController } from './command-completions.controller';
import { CommandCompletionsWebSocket } from './command-completions.websocket';
import { CompletionsReader } from './completions.reader';
import { GetCompletionByHashHandler } from './queries/completion-by-hash.query';
import { ListCompletionsHandler } from './queries/list-completions.query';

/** Command completions: the list form and the WebSocket, both over the stream engine (streaming/); the lookup by hash. */
@Module({
  imports: [StreamingModule],
  controllers: [CommandCompletionsController],
  providers: [CompletionsReader, ListCompletionsHandler, GetCompletionByHashHandler, CommandCompletionsWebSocket],
})
export class CommandCompletionsModule {}
