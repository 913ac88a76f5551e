import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { generateExternalPartyTopology, type GeneratedTopology } from '@ledgerline/domain';
import { ParticipantIdentity } from '../../../infrastructure/participant-identity';
import { hostingContext } from '../commands/allocate-external-party.handler';
import { GenerateExternalPartyTopologyQuery } from './generate-topology.query';

/** Any authenticated caller may ask (it is a pure computation, as in Canton). */
@QueryHandler(GenerateExternalPartyTopologyQuery)
export class GenerateExternalPartyTopologyHandler implements IQueryHandler<GenerateExternalPartyTopologyQuery> {
  constructor(private readonly identity: ParticipantIdentity) {}

  async execute({ request }: GenerateExternalPartyTopologyQuery): Promise<GeneratedTopology> {
    return generateExternalPartyTopology(request, hostingContext(this.identity));
  }
}
