import { Module } from '@nestjs/common';
import { IdentityProvidersRepository, PartiesRepository } from '@ledgerline/store';
import { AllocatePartyHandler, UpdatePartyDetailsHandler } from './commands/party-command.handlers';
import { GetPartiesHandler, ListPartiesHandler } from './queries/party-query.handlers';
import { PartiesController } from './parties.controller';

@Module({
  controllers: [PartiesController],
  providers: [PartiesRepository, IdentityProvidersRepository, AllocatePartyHandler, UpdatePartyDetailsHandler, GetPartiesHandler, ListPartiesHandler],
})
export class PartiesModule {}
