import { Controller, Get } from '@nestjs/common';
import { LedgerStateRepository } from '@ledgerline/store';
import { LedgerRuntime } from '../../infrastructure/runtime';
import { ParticipantIdentity } from '../../infrastructure/participant-identity';

/** GET /v2/state/*: ledger end, pruning offsets and connected synchronizers. Any authenticated user may read them. */
@Controller('v2/state')
export class StateController {
  private readonly state = new LedgerStateRepository();

  constructor(private readonly runtime: LedgerRuntime, private readonly identity: ParticipantIdentity) {}

  @Get('ledger-end')
  async ledgerEnd() {
    return { offset: await this.state.ledgerEnd(this.runtime.db) };
  }

  @Get('latest-pruned-offsets')
  async prunedOffsets() {
    const pruned = await this.state.prunedUpTo(this.runtime.db);
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
