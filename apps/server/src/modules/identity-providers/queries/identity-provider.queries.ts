import type { Claims } from '@ledgerline/domain';

export class GetIdentityProviderQuery {
  constructor(
    readonly claims: Claims,
    readonly id: string,
  ) {}
}
export class ListIdentityProvidersQuery {
  constructor(readonly claims: Claims) {}
}
