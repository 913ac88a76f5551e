import type { AllocateExternalPartyRequest, Claims } from '@ledgerline/domain';

/** POST /v2/parties/external/allocate, decoded. */
export class AllocateExternalPartyCommand {
  constructor(
    readonly claims: Claims,
    readonly request: AllocateExternalPartyRequest,
    /** Optional user that gets CanActAs(party) in the same commit ('' = none). */
    readonly userId: string,
  ) {}
}
