import type { Claims, UpdatePartyDetailsBody } from '@ledgerline/domain';

export interface AllocatePartyInput {
  partyIdHint: string;
  annotations: Record<string, string>;
  resourceVersion: string;
  identityProviderId: string;
  synchronizerId: string;
  userId: string;
}

export class AllocatePartyCommand {
  constructor(
    readonly claims: Claims,
    readonly input: AllocatePartyInput,
  ) {}
}

export class UpdatePartyDetailsCommand {
  constructor(
    readonly claims: Claims,
    readonly pathParty: string,
    readonly body: UpdatePartyDetailsBody,
  ) {}
}
