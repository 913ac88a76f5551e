import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { jwkOf, parsePublicKey, type Jwk } from '@ledgerline/canton';
import { jwksIdentifier, partySigningKeysNotFound, synchronizerNotFound } from '@ledgerline/domain';
import { PartySigningKeysRepository } from '@ledgerline/store';
import { LedgerRuntime } from '../../../infrastructure/runtime';
import { ParticipantIdentity } from '../../../infrastructure/participant-identity';

/** GET /v2/jose/jwks/synchronizer/{synchronizer}/party/{party} (Canton 3.5.10). Any authenticated caller. */
export class GetJwksQuery {
  constructor(
    readonly synchronizer: string,
    readonly party: string,
  ) {}
}

/** The party's signing keys on the synchronizer, each as a JWK (libs/canton jwk.ts); see libs/domain external-parties/jwks.ts. */
@QueryHandler(GetJwksQuery)
export class GetJwksHandler implements IQueryHandler<GetJwksQuery> {
  constructor(
    private readonly runtime: LedgerRuntime,
    private readonly identity: ParticipantIdentity,
    private readonly repo: PartySigningKeysRepository,
  ) {}

  async execute({ synchronizer, party }: GetJwksQuery): Promise<{ keys: Jwk[] }> {
    const synchronizerId = jwksIdentifier(synchronizer, 'synchronizerId');
    const partyId = jwksIdentifier(party, 'partyId');
    if (!this.identity.synchronizer(synchronizerId)) throw synchronizerNotFound(synchronizerId);
    const found = await this.repo.keysOn(this.runtime.db, partyId, synchronizerId);
    if (!found || found.keys.length === 0) throw partySigningKeysNotFound(partyId);
    // Registered keys were parsed when the party was allocated.
    return {
      keys: found.keys.map((k) =>
        jwkOf(parsePublicKey({ format: k.keyFormat, keyData: k.publicKey, keySpec: k.keySpec })),
      ),
    };
  }
}
