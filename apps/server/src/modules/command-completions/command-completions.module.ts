import { Module } from '@nestjs/common';
import { UpdatesModule } from '../updates/updates.module';
import { CommandCompletionsController } from './command-completions.controller';
import { CommandCompletionsWebSocket } from './command-completions.websocket';
import { CompletionsReader } from './completions.reader';
import { ListCompletionsHandler } from './queries/list-completions.query';

/** Command completions: the list form and the WebSocket, both over the update streams' engine. */
@Module({
  imports: [UpdatesModule],
  controllers: [CommandCompletionsController],
  providers: [CompletionsReader, ListCompletionsHandler, CommandCompletionsWebSocket],
})
export class CommandCompletionsModule {}
