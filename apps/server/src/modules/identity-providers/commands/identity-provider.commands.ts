import type { Claims, IdentityProviderConfig } from '@ledgerline/domain';

export class CreateIdentityProviderCommand {
  constructor(
    readonly claims: Claims,
    readonly config: IdentityProviderConfig,
  ) {}
}
export class UpdateIdentityProviderCommand {
  constructor(
    readonly claims: Claims,
    readonly pathId: string,
    readonly config: IdentityProviderConfig,
    readonly maskPaths: string[] | null,
  ) {}
}
export class DeleteIdentityProviderCommand {
  constructor(
    readonly claims: Claims,
    readonly id: string,
  ) {}
}
export class UpdateUserIdentityProviderCommand {
  constructor(
    readonly claims: Claims,
    readonly pathUserId: string,
    readonly userId: string,
    readonly source: string,
    readonly target: string,
  ) {}
}
