import type { Claims, Right, UpdateUserBody, UserRecord } from '@ledgerline/domain';

export class CreateUserCommand {
  constructor(
    readonly claims: Claims,
    readonly user: UserRecord,
    readonly rights: Right[],
  ) {}
}
export class GrantUserRightsCommand {
  constructor(
    readonly claims: Claims,
    readonly userId: string,
    readonly rights: Right[],
    readonly identityProviderId: string,
  ) {}
}
export class RevokeUserRightsCommand {
  constructor(
    readonly claims: Claims,
    readonly userId: string,
    readonly rights: Right[],
    readonly identityProviderId: string,
  ) {}
}
export class DeleteUserCommand {
  constructor(
    readonly claims: Claims,
    readonly userId: string,
  ) {}
}
export class UpdateUserCommand {
  constructor(
    readonly claims: Claims,
    readonly pathUserId: string,
    readonly body: UpdateUserBody,
  ) {}
}
