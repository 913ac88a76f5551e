import { Module } from '@nestjs/common';
import { AllocateExternalPartyHandler } from './commands/allocate-external-party.handler';
import { ExternalPartiesController } from './external-parties.controller';
import { JoseController } from './jose.controller';
import { GenerateExternalPartyTopologyHandler } from './queries/generate-topology.handler';
import { GetJwksHandler } from './queries/get-jwks.query';

@Module({
  controllers: [ExternalPartiesController, JoseController],
  providers: [AllocateExternalPartyHandler, GenerateExternalPartyTopologyHandler, GetJwksHandler],
})
export class ExternalPartiesModule {}
