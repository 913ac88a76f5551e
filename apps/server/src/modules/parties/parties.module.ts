import { Module } from '@nestjs/common';
import { AllocatePartyHandler, UpdatePartyDetailsHandler } from './commands/party-command.handlers';
import { GetPartiesHandler, ListPartiesHandler } from './queries/party-query.handlers';
import { PartiesController } from './parties.controller';

@Module({
  controllers: [PartiesController],
  providers: [AllocatePartyHandler, UpdatePartyDetailsHandler, GetPartiesHandler, ListPartiesHandler],
})
export class PartiesModule {}
