import type { Claims } from '@ledgerline/domain';

export class GetUserQuery {
  constructor(
    readonly claims: Claims,
    readonly userId: string,
    readonly identityProviderId: string,
  ) {}
}
export class ListUsersQuery {
  constructor(
    readonly claims: Claims,
    readonly pageSize: number | undefined,
    readonly pageToken: string,
    readonly identityProviderId: string,
  ) {}
}
export class ListUserRightsQuery {
  constructor(
    readonly claims: Claims,
    readonly userId: string,
    readonly identityProviderId: string,
  ) {}
}
