import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import {
  checkSelfAllocationQuota,
  isIdpAdmin,
  matchIdentityProviderId,
  permissionDenied,
  validateUserId,
  verifyExternalPartyAllocation,
  type HostingContext,
} from '@ledgerline/domain';
import { SignatureVerifier } from '@ledgerline/canton';
import { EventStore, externalPartyAllocationDecider, UsersRepository } from '@ledgerline/store';
import { LedgerRuntime } from '../../../infrastructure/runtime';
import { ParticipantIdentity } from '../../../infrastructure/participant-identity';
import { AllocateExternalPartyCommand } from './allocate-external-party.command';

export function hostingContext(identity: ParticipantIdentity): HostingContext {
  return { participantId: identity.participantId, connectedSynchronizers: identity.synchronizers.map((s) => s.id) };
}

/**
 * Verifies the onboarding transaction and its signatures (CPU, outside the write transaction), then the writer decides
 * (externalPartyAllocationDecider), in one commit: refuses a party that exists, registers the party (party_details) and
 * its keys, appends the topology update, and grants `userId` CanActAs if asked.
 */
@CommandHandler(AllocateExternalPartyCommand)
export class AllocateExternalPartyHandler implements ICommandHandler<AllocateExternalPartyCommand> {
  constructor(
    private readonly store: EventStore,
    private readonly identity: ParticipantIdentity,
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
    if (selfAllocationQuota !== null)
      checkSelfAllocationQuota(await this.users.state(this.runtime.db, userId), selfAllocationQuota);
    const ctx = hostingContext(this.identity);
    const verified = verifyExternalPartyAllocation(request, ctx, this.signatures);
    return this.store.decide(externalPartyAllocationDecider, {
      verified,
      hosting: ctx,
      options: { identityProviderId: idp, userId, selfAllocationQuota },
    });
  }
}
