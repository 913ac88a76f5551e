import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import {
  decodePageToken,
  encodePageToken,
  invalidArgument,
  isParticipantAdmin,
  matchIdentityProviderId,
  requireAdminOrIdpAdmin,
  requireUserInCallerIdentityProvider,
  userNotFound,
  validateUserId,
  type Claims,
} from '@ledgerline/domain';
import { UsersRepository } from '@ledgerline/store';
import { LedgerRuntime } from '../../../infrastructure/runtime';
import { GetUserQuery, ListUserRightsQuery, ListUsersQuery } from './user.queries';

export const MAX_USERS_PAGE_SIZE = 1000;

/** A caller may always read itself; reading others needs admin or the admin of their identity provider. */
function authorizeUserRead(claims: Claims, userId: string, requestedIdp: string, userIdp: string | undefined): void {
  if (userId === claims.userId) return;
  requireAdminOrIdpAdmin(claims);
  matchIdentityProviderId(claims, requestedIdp);
  requireUserInCallerIdentityProvider(claims, userIdp);
}

@QueryHandler(GetUserQuery)
export class GetUserHandler implements IQueryHandler<GetUserQuery> {
  constructor(
    private readonly runtime: LedgerRuntime,
    private readonly users: UsersRepository,
  ) {}

  async execute({ claims, userId, identityProviderId }: GetUserQuery) {
    const id = userId || claims.userId;
    validateUserId(id);
    const user = await this.users.get(this.runtime.db, id);
    authorizeUserRead(claims, id, identityProviderId, user?.identityProviderId);
    if (!user) throw userNotFound(id);
    return user;
  }
}

@QueryHandler(ListUserRightsQuery)
export class ListUserRightsHandler implements IQueryHandler<ListUserRightsQuery> {
  constructor(
    private readonly runtime: LedgerRuntime,
    private readonly users: UsersRepository,
  ) {}

  async execute({ claims, userId, identityProviderId }: ListUserRightsQuery) {
    const id = userId || claims.userId;
    validateUserId(id);
    const state = await this.users.state(this.runtime.db, id);
    authorizeUserRead(claims, id, identityProviderId, state.user?.identityProviderId);
    if (!state.user) throw userNotFound(id);
    return state.rights;
  }
}

@QueryHandler(ListUsersQuery)
export class ListUsersHandler implements IQueryHandler<ListUsersQuery> {
  constructor(
    private readonly runtime: LedgerRuntime,
    private readonly users: UsersRepository,
  ) {}

  async execute({ claims, pageSize, pageToken, identityProviderId }: ListUsersQuery) {
    requireAdminOrIdpAdmin(claims);
    const idp = matchIdentityProviderId(claims, identityProviderId);
    if (pageSize !== undefined && (pageSize < 0 || pageSize > MAX_USERS_PAGE_SIZE)) {
      throw invalidArgument(`Page size must be non-negative and at most ${MAX_USERS_PAGE_SIZE}`);
    }
    const size = pageSize || MAX_USERS_PAGE_SIZE;
    const afterId = pageToken ? decodePageToken(pageToken) : '';
    const users = await this.users.list(this.runtime.db, {
      afterId,
      limit: size,
      identityProviderId: isParticipantAdmin(claims) && !identityProviderId ? undefined : idp,
    });
    const nextPageToken = users.length === size ? encodePageToken(users[users.length - 1].id) : '';
    return { users, nextPageToken };
  }
}
