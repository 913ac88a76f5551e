import type { Claims, PreferredPackagesRequest, VettingListFilter } from '@ledgerline/domain';

export class ListPackagesQuery {
  constructor(readonly claims: Claims) {}
}
export class GetPackageQuery {
  constructor(
    readonly claims: Claims,
    readonly packageId: string,
  ) {}
}
export class GetPackageStatusQuery {
  constructor(
    readonly claims: Claims,
    readonly packageId: string,
  ) {}
}
export class ListVettedPackagesQuery {
  constructor(
    readonly claims: Claims,
    readonly filter: VettingListFilter,
    readonly pageToken: string,
    readonly pageSize: number,
  ) {}
}
export class GetPreferredPackagesQuery {
  constructor(
    readonly claims: Claims,
    readonly request: PreferredPackagesRequest,
  ) {}
}
/** GET /v2/definitions/packages: a summary of each stored package's contents. */
export class ListPackageDefinitionsQuery {
  constructor(readonly claims: Claims) {}
}
/** GET /v2/definitions/packages/{packageId}: what one package holds. */
export class GetPackageDefinitionsQuery {
  constructor(
    readonly claims: Claims,
    readonly packageId: string,
  ) {}
}
