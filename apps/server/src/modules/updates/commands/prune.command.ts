import { ICommandHandler, CommandHandler } from '@nestjs/cqrs';
import { requireParticipantAdmin, type Claims } from '@ledgerline/domain';
import { EventStore, pruneLedger } from '@ledgerline/store';

/** POST /v2/admin/prune: prune the ledger up to an offset (ParticipantAdmin only). */
export class PruneLedgerCommand {
  constructor(
    readonly claims: Claims,
    readonly pruneUpTo: number,
  ) {}
}

@CommandHandler(PruneLedgerCommand)
export class PruneLedgerHandler implements ICommandHandler<PruneLedgerCommand> {
  constructor(private readonly store: EventStore) {}

  async execute({ claims, pruneUpTo }: PruneLedgerCommand) {
    requireParticipantAdmin(claims);
    return { prunedUpTo: await pruneLedger(this.store, pruneUpTo) };
  }
}
