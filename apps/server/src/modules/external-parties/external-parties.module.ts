import { Module } from '@nestjs/common';
import { ExternalPartiesRepository, IdentityProvidersRepository, PartiesRepository } from '@ledgerline/store';
import { AllocateExternalPartyHandler } from './commands/allocate-external-party.handler';
import { ExternalPartiesController } from './external-parties.controller';
import { JoseController } from './jose.controller';
import { GenerateExternalPartyTopologyHandler } from './queries/generate-topology.handler';
import { GetJwksHandler } from './queries/get-jwks.query';

@Module({
  controllers: [ExternalPartiesController, JoseController],
  providers: [ExternalPartiesRepository, PartiesRepository, IdentityProvidersRepository, AllocateExternalPartyHandler, GenerateExternalPartyTopologyHandler, GetJwksHandler],
  exports: [ExternalPartiesRepository],
})
export class ExternalPartiesModule {}
