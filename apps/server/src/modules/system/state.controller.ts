import { Controller, Get } from '@nestjs/common';
import { LedgerUpdatesRepository } from '@ledgerline/store';
import { LedgerRuntime } from '../../infrastructure/runtime';
import { ParticipantIdentity } from '../../infrastructure/participant-identity';

/** GET /v2/state/*: ledger end, pruning offsets and connected synchronizers. Any authenticated user may read them. */
@Controller('v2/state')
export class StateController {
  constructor(
    private readonly updates: LedgerUpdatesRepository,
    private readonly runtime: LedgerRuntime,
    private readonly identity: ParticipantIdentity,
  ) {}

  @Get('ledger-end')
  async ledgerEnd() {
    return { offset: await this.updates.ledgerEnd(this.runtime.db) };
  }

  @Get('latest-pruned-offsets')
  async prunedOffsets() {
    const { prunedUpTo: pruned } = await this.updates.position(this.runtime.db);
    return { participantPrunedUpToInclusive: pruned, allDivulgedContractsPrunedUpToInclusive: pruned };
  }

  @Get('connected-synchronizers')
  connectedSynchronizers() {
    return {
      connectedSynchronizers: this.identity.synchronizers.map((s) => ({
        synchronizerAlias: s.alias,
        synchronizerId: s.id,
        permission: 'PARTICIPANT_PERMISSION_SUBMISSION',
      })),
    };
  }
}
