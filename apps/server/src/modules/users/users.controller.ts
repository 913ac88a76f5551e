import { Body, Controller, Delete, Get, Param, Patch, Query } from '@nestjs/common';
import { PostJson } from '../../http/routes';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { RouteSchema } from '@nestjs/platform-fastify';
import type { Claims } from '@ledgerline/domain';
import { CurrentClaims } from '@ledgerline/auth';
import {
  int32Query,
  rightsFromJs,
  rightSchema,
  rightToJs,
  updateUserFromJs,
  updateUserRequestSchema,
  userSchema,
  userToJs,
  type RawUpdateUserBody,
} from '@ledgerline/wire';
import {
  CreateUserCommand,
  DeleteUserCommand,
  GrantUserRightsCommand,
  RevokeUserRightsCommand,
  UpdateUserCommand,
} from './commands/user.commands';
import { GetUserQuery, ListUserRightsQuery, ListUsersQuery } from './queries/user.queries';

const rightsBody = {
  type: 'object',
  properties: {
    userId: { type: 'string' },
    rights: { type: 'array', items: rightSchema },
    identityProviderId: { type: 'string' },
  },
} as const;

interface CreateUserBody {
  user: {
    id: string;
    primaryParty?: string;
    isDeactivated?: boolean;
    metadata?: { annotations?: Record<string, string> };
    identityProviderId?: string;
    primaryPartyAuthentication?: boolean;
  };
  rights?: unknown;
}

/** User management: thin HTTP mapping onto commands and queries. */
@Controller('v2')
export class UsersController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Get('authenticated-user')
  async authenticatedUser(@CurrentClaims() claims: Claims) {
    return { user: userToJs(await this.queries.execute(new GetUserQuery(claims, claims.userId, ''))) };
  }

  @PostJson('users')
  @RouteSchema({
    body: {
      type: 'object',
      required: ['user'],
      properties: { user: userSchema, rights: { type: 'array', items: rightSchema } },
    },
  })
  async create(@CurrentClaims() claims: Claims, @Body() body: CreateUserBody) {
    const u = body.user;
    const user = await this.commands.execute(
      new CreateUserCommand(
        claims,
        {
          id: u.id,
          primaryParty: u.primaryParty ?? '',
          isDeactivated: u.isDeactivated ?? false,
          annotations: u.metadata?.annotations ?? {},
          identityProviderId: u.identityProviderId ?? '',
          primaryPartyAuthentication: u.primaryPartyAuthentication ?? false,
        },
        rightsFromJs(body.rights, 'rights'),
      ),
    );
    return { user: userToJs(user) };
  }

  @Get('users')
  async list(@CurrentClaims() claims: Claims, @Query() q: Record<string, unknown>) {
    const res = await this.queries.execute(
      new ListUsersQuery(
        claims,
        int32Query('pageSize', q.pageSize),
        String(q.pageToken ?? ''),
        String(q['identity-provider-id'] ?? ''),
      ),
    );
    return { users: res.users.map(userToJs), nextPageToken: res.nextPageToken };
  }

  @Get('users/:userId')
  async get(@CurrentClaims() claims: Claims, @Param('userId') userId: string, @Query() q: Record<string, unknown>) {
    return {
      user: userToJs(
        await this.queries.execute(new GetUserQuery(claims, userId, String(q['identity-provider-id'] ?? ''))),
      ),
    };
  }

  @Patch('users/:userId')
  @RouteSchema({ body: updateUserRequestSchema })
  async update(
    @CurrentClaims() claims: Claims,
    @Param('userId') userId: string,
    @Body() body: RawUpdateUserBody | undefined,
  ) {
    return {
      user: userToJs(await this.commands.execute(new UpdateUserCommand(claims, userId, updateUserFromJs(body)))),
    };
  }

  @Delete('users/:userId')
  async delete(@CurrentClaims() claims: Claims, @Param('userId') userId: string) {
    await this.commands.execute(new DeleteUserCommand(claims, userId));
    return {};
  }

  @Get('users/:userId/rights')
  async rights(@CurrentClaims() claims: Claims, @Param('userId') userId: string, @Query() q: Record<string, unknown>) {
    const rights = await this.queries.execute(
      new ListUserRightsQuery(claims, userId, String(q['identity-provider-id'] ?? '')),
    );
    return { rights: rights.map(rightToJs) };
  }

  @PostJson('users/:userId/rights')
  @RouteSchema({ body: rightsBody })
  async grant(
    @CurrentClaims() claims: Claims,
    @Param('userId') userId: string,
    @Body() body: { rights?: unknown; identityProviderId?: string },
  ) {
    const granted = await this.commands.execute(
      new GrantUserRightsCommand(claims, userId, rightsFromJs(body.rights, 'rights'), body.identityProviderId ?? ''),
    );
    return { newlyGrantedRights: granted.map(rightToJs) };
  }

  @Patch('users/:userId/rights')
  @RouteSchema({ body: rightsBody })
  async revoke(
    @CurrentClaims() claims: Claims,
    @Param('userId') userId: string,
    @Body() body: { rights?: unknown; identityProviderId?: string },
  ) {
    const revoked = await this.commands.execute(
      new RevokeUserRightsCommand(claims, userId, rightsFromJs(body.rights, 'rights'), body.identityProviderId ?? ''),
    );
    return { newlyRevokedRights: revoked.map(rightToJs) };
  }
}
