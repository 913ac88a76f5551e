import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import {
  checkSelfAllocationQuota,
  decideAllocateExternalParty,
  isIdpAdmin,
  matchIdentityProviderId,
  permissionDenied,
  validateUserId,
  verifyExternalPartyAllocation,
  type HostingContext,
} from '@ledgerline/domain';
import { SignatureVerifier } from '@ledgerline/canton';
import { EventStore, IdentityProvidersRepository, PartiesRepository, UsersRepository } from '@ledgerline/store';
import { LedgerRuntime } from '../../../infrastructure/runtime';
import { ParticipantIdentity } from '../../../infrastructure/participant-identity';
import { AllocateExternalPartyCommand } from './allocate-external-party.command';

export function hostingContext(identity: ParticipantIdentity): HostingContext {
  return { participantId: identity.participantId, connectedSynchronizers: identity.synchronizers.map((s) => s.id) };
}

/**
 * Verifies the onboarding transaction and its signatures (CPU, outside the write transaction), then, in one commit:
 * refuses a party that exists, registers the party (party_details) and its keys, appends the topology update, and grants
 * `userId` CanActAs if asked.
 */
@CommandHandler(AllocateExternalPartyCommand)
export class AllocateExternalPartyHandler implements ICommandHandler<AllocateExternalPartyCommand> {
  constructor(
    private readonly store: EventStore,
    private readonly identity: ParticipantIdentity,
    private readonly parties: PartiesRepository,
    private readonly idps: IdentityProvidersRepository,
    private readonly users: UsersRepository,
    private readonly signatures: SignatureVerifier,
    private readonly runtime: LedgerRuntime,
  ) {}

  async execute({ claims, request, userId }: AllocateExternalPartyCommand): Promise<string> {
    // AdminOrIdpAdminOrSelfAdmin(userId) + MatchIdentityProviderId (openapi: AllocateExternalPartyRequest).
    const selfAllocation = !isIdpAdmin(claims);
    if (selfAllocation && !(userId !== '' && userId === claims.userId))
      throw permissionDenied('Claims do not authorize the use of administrative services.');
    const idp = matchIdentityProviderId(claims, request.identityProviderId);
    if (userId) validateUserId(userId, 'user_id');
    // External parties count towards the self-allocation quota too; checked before the signatures are verified (CPU).
    const selfAllocationQuota = selfAllocation ? this.runtime.config.maxSelfAllocatedParties : null;
    if (selfAllocationQuota !== null) checkSelfAllocationQuota(await this.users.state(this.runtime.db, userId), selfAllocationQuota);
    const ctx = hostingContext(this.identity);
    const verified = verifyExternalPartyAllocation(request, ctx, this.signatures);
    return this.store.execute(async (tx) => {
      const state = {
        partyExists: (await this.parties.get(tx.db, verified.partyId)) !== null,
        identityProviderExists: await this.idps.exists(tx.db, idp),
        user: userId ? await this.users.state(tx.db, userId) : null,
      };
      const events = decideAllocateExternalParty(state, verified, ctx, { identityProviderId: idp, userId, selfAllocationQuota });
      await tx.append(events);
      return verified.partyId;
    });
  }
}
