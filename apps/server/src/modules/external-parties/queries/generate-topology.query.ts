import type { Claims, GenerateTopologyRequest } from '@ledgerline/domain';

/** POST /v2/parties/external/generate-topology, decoded. Computes; reads and writes nothing. */
export class GenerateExternalPartyTopologyQuery {
  constructor(
    readonly claims: Claims,
    readonly request: GenerateTopologyRequest,
  ) {}
}
