import { Module } from '@nestjs/common';
import { ExternalPartiesRepository, IdentityProvidersRepository, PartiesRepository } from '@ledgerline/store';
import { AllocateExternalPartyHandler } from './commands/allocate-external-party.handler';
import { ExternalPartiesController } from './external-parties.controller';
import { GenerateExternalPartyTopologyHandler } from './queries/generate-topology.handler';

@Module({
  controllers: [ExternalPartiesController],
  providers: [ExternalPartiesRepository, PartiesRepository, IdentityProvidersRepository, AllocateExternalPartyHandler, GenerateExternalPartyTopologyHandler],
  exports: [ExternalPartiesRepository],
})
export class ExternalPartiesModule {}
