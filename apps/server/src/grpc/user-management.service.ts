import { create } from '@bufbuild/protobuf';
import type { INestApplicationContext } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { Right, UserRecord } from '@ledgerline/domain';
import { ledgerAdmin } from '@ledgerline/grpc';
import { rightsFromJs } from '@ledgerline/wire';
import type { LedgerRuntime } from '../infrastructure/runtime';
import {
  CreateUserCommand,
  DeleteUserCommand,
  GrantUserRightsCommand,
  RevokeUserRightsCommand,
  UpdateUserCommand,
} from '../modules/users/commands/user.commands';
import { GetUserQuery, ListUserRightsQuery, ListUsersQuery } from '../modules/users/queries/user.queries';
import { unary } from './grpc-call';

type StoredUser = UserRecord & { resourceVersion: number };

const userOf = (u: StoredUser) => ({
  id: u.id,
  primaryParty: u.primaryParty,
  isDeactivated: u.isDeactivated,
  metadata: { resourceVersion: String(u.resourceVersion), annotations: u.annotations },
  identityProviderId: u.identityProviderId,
  primaryPartyAuthentication: u.primaryPartyAuthentication ?? false,
});

/** A domain right as the protobuf oneof (`CanActAs` ↔ `canActAs`). */
const rightOf = (r: Right) => ({
  kind: { case: r.kind[0].toLowerCase() + r.kind.slice(1), value: 'party' in r ? { party: r.party } : {} },
});

/** Protobuf rights through the JSON API's decoder (its checks: a party right names a party), as JSON rights. */
const rightsOf = (rights: ledgerAdmin.Right[]): Right[] =>
  rightsFromJs(
    rights.map((r) =>
      r.kind.case === undefined
        ? { kind: { Empty: {} } }
        : { kind: { [r.kind.case[0].toUpperCase() + r.kind.case.slice(1)]: { value: { ...r.kind.value } } } },
    ),
    'rights',
  );

/** UserManagementService: the commands and queries of /v2/users (UsersController), over gRPC. */
export function userManagementService(app: INestApplicationContext, runtime: LedgerRuntime) {
  const commands = app.get(CommandBus);
  const queries = app.get(QueryBus);
  return {
    createUser: unary(runtime, async (request: ledgerAdmin.CreateUserRequest, call) => {
      const u = request.user;
      const user: StoredUser = await commands.execute(
        new CreateUserCommand(
          await call.claims(),
          {
            id: u?.id ?? '',
            primaryParty: u?.primaryParty ?? '',
            isDeactivated: u?.isDeactivated ?? false,
            annotations: u?.metadata?.annotations ?? {},
            identityProviderId: u?.identityProviderId ?? '',
            primaryPartyAuthentication: u?.primaryPartyAuthentication ?? false,
          },
          rightsOf(request.rights),
        ),
      );
      return create(ledgerAdmin.CreateUserResponseSchema, { user: userOf(user) });
    }),
    getUser: unary(runtime, async (request: ledgerAdmin.GetUserRequest, call) => {
      const claims = await call.claims();
      // An empty user id names the authenticated user (Canton's GetUser, as GET /v2/authenticated-user).
      const user: StoredUser = await queries.execute(
        new GetUserQuery(claims, request.userId || claims.userId, request.userId ? request.identityProviderId : ''),
      );
      return create(ledgerAdmin.GetUserResponseSchema, { user: userOf(user) });
    }),
    updateUser: unary(runtime, async (request: ledgerAdmin.UpdateUserRequest, call) => {
      const u = request.user;
      const user: StoredUser = await commands.execute(
        new UpdateUserCommand(await call.claims(), u?.id ?? '', {
          user: u
            ? {
                id: u.id,
                primaryParty: u.primaryParty,
                isDeactivated: u.isDeactivated,
                metadata: u.metadata
                  ? { resourceVersion: u.metadata.resourceVersion, annotations: u.metadata.annotations }
                  : null,
                identityProviderId: u.identityProviderId,
                primaryPartyAuthentication: u.primaryPartyAuthentication,
              }
            : null,
          updateMask: request.updateMask ? { paths: request.updateMask.paths } : null,
        }),
      );
      return create(ledgerAdmin.UpdateUserResponseSchema, { user: userOf(user) });
    }),
    deleteUser: unary(runtime, async (request: ledgerAdmin.DeleteUserRequest, call) => {
      await commands.execute(new DeleteUserCommand(await call.claims(), request.userId));
      return create(ledgerAdmin.DeleteUserResponseSchema, {});
    }),
    listUsers: unary(runtime, async (request: ledgerAdmin.ListUsersRequest, call) => {
      const res: { users: StoredUser[]; nextPageToken: string } = await queries.execute(
        new ListUsersQuery(
          await call.claims(),
          request.pageSize === 0 ? undefined : request.pageSize,
          request.pageToken,
          request.identityProviderId,
        ),
      );
      return create(ledgerAdmin.ListUsersResponseSchema, {
        users: res.users.map(userOf),
        nextPageToken: res.nextPageToken,
      });
    }),
    grantUserRights: unary(runtime, async (request: ledgerAdmin.GrantUserRightsRequest, call) => {
      const granted: Right[] = await commands.execute(
        new GrantUserRightsCommand(
          await call.claims(),
          request.userId,
          rightsOf(request.rights),
          request.identityProviderId,
        ),
      );
      return create(ledgerAdmin.GrantUserRightsResponseSchema, { newlyGrantedRights: granted.map(rightOf) as never });
    }),
    revokeUserRights: unary(runtime, async (request: ledgerAdmin.RevokeUserRightsRequest, call) => {
      const revoked: Right[] = await commands.execute(
        new RevokeUserRightsCommand(
          await call.claims(),
          request.userId,
          rightsOf(request.rights),
          request.identityProviderId,
        ),
      );
      return create(ledgerAdmin.RevokeUserRightsResponseSchema, { newlyRevokedRights: revoked.map(rightOf) as never });
    }),
    listUserRights: unary(runtime, async (request: ledgerAdmin.ListUserRightsRequest, call) => {
      const claims = await call.claims();
      const rights: Right[] = await queries.execute(
        new ListUserRightsQuery(claims, request.userId || claims.userId, request.identityProviderId),
      );
      return create(ledgerAdmin.ListUserRightsResponseSchema, { rights: rights.map(rightOf) as never });
    }),
  };
}
