import type { Claims } from '@ledgerline/domain';

export class GetPartiesQuery {
  constructor(
    readonly claims: Claims,
    readonly parties: string[],
    readonly identityProviderId: string,
  ) {}
}

export class ListPartiesQuery {
  constructor(
    readonly claims: Claims,
    readonly pageSize: number | undefined,
    readonly pageToken: string,
    readonly filterParty: string,
    readonly identityProviderId: string,
  ) {}
}
