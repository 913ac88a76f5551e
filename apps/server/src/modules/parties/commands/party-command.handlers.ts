import { randomUUID } from 'node:crypto';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import {
  authorizeAllocateParty,
  authorizeUpdatePartyDetails,
  checkPathMatchesBody,
  checkSelfAllocationQuota,
  generatedPartyHint,
  validateAllocatePartyRequest,
  validateUpdatePartyDetails,
  type PartyRecord,
} from '@ledgerline/domain';
import { EventStore, partyAllocationDecider, partyUpdateDecider, UsersRepository } from '@ledgerline/store';
import { LedgerRuntime } from '../../../infrastructure/runtime';
import { ParticipantIdentity } from '../../../infrastructure/participant-identity';
import { AllocatePartyCommand, UpdatePartyDetailsCommand } from './party.commands';

@CommandHandler(AllocatePartyCommand)
export class AllocatePartyHandler implements ICommandHandler<AllocatePartyCommand> {
  constructor(
    private readonly store: EventStore,
    private readonly runtime: LedgerRuntime,
    private readonly identity: ParticipantIdentity,
    private readonly users: UsersRepository,
  ) {}

  async execute({ claims, input }: AllocatePartyCommand): Promise<PartyRecord> {
    const { identityProviderId, selfAllocation } = authorizeAllocateParty(
      claims,
      input.userId,
      input.identityProviderId,
    );
    const selfAllocationQuota = selfAllocation ? this.runtime.config.maxSelfAllocatedParties : null;
    // The quota before any check of the request's content (the writer checks it again, against the committed rights).
    if (selfAllocationQuota !== null)
      checkSelfAllocationQuota(await this.users.state(this.runtime.db, input.userId), selfAllocationQuota);
    const request = { ...input, identityProviderId };
    validateAllocatePartyRequest(request);
    const hint = request.partyIdHint || generatedPartyHint(randomUUID());
    return this.store.decide(partyAllocationDecider, {
      request: { ...request, partyIdHint: hint },
      participant: {
        connectedSynchronizers: this.identity.synchronizers.map((s) => s.id),
        participantId: this.identity.participantId,
        namespace: this.identity.fingerprint,
        selfAllocationQuota,
      },
    });
  }
}

@CommandHandler(UpdatePartyDetailsCommand)
export class UpdatePartyDetailsHandler implements ICommandHandler<UpdatePartyDetailsCommand> {
  constructor(private readonly store: EventStore) {}

  async execute({ claims, pathParty, body }: UpdatePartyDetailsCommand): Promise<PartyRecord> {
    checkPathMatchesBody(pathParty, body);
    const identityProviderId = authorizeUpdatePartyDetails(
      claims,
      body.partyDetails ? body.partyDetails.identityProviderId : null,
    );
    const request = validateUpdatePartyDetails(body, identityProviderId);
    // The writer loads the record (with every earlier write of the ledger) for many PATCHes at once.
    return this.store.decide(partyUpdateDecider, request);
  }
}
