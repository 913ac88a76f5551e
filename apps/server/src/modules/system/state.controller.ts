import { Controller, Get } from '@nestjs/common';
import { sql } from 'kysely';
import { LedgerRuntime } from '../../infrastructure/runtime';
import { ParticipantIdentity } from '../../infrastructure/participant-identity';

/** GET /v2/state/*: ledger end, pruning offsets and connected synchronizers. Any authenticated user may read them. */
@Controller('v2/state')
export class StateController {
  constructor(private readonly runtime: LedgerRuntime, private readonly identity: ParticipantIdentity) {}

  @Get('ledger-end')
  async ledgerEnd() {
    const { rows } = await sql<{ ledger_offset: number }>`SELECT ledger_offset FROM ledger_head WHERE id = 1`.execute(this.runtime.db);
    return { offset: Number(rows[0].ledger_offset) };
  }

  @Get('latest-pruned-offsets')
  async prunedOffsets() {
    const { rows } = await sql<{ pruned: number }>`SELECT COALESCE((SELECT pruned_up_to FROM ledger_pruning WHERE id = 1), 0) AS pruned`.execute(this.runtime.db);
    const pruned = Number(rows[0].pruned);
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
