import { Body, Controller, Delete, Get, Param, Patch } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { RouteSchema } from '@nestjs/platform-fastify';
import type { Claims, IdentityProviderConfig } from '@ledgerline/domain';
import { CurrentClaims } from '@ledgerline/auth';
import {
  createIdentityProviderConfigRequestSchema,
  identityProviderConfigFromJs,
  identityProviderConfigToJs,
  updateIdentityProviderConfigRequestSchema,
  updateUserIdentityProviderIdRequestSchema,
} from '@ledgerline/wire';
import { PostJson } from '../../http/routes';
import {
  CreateIdentityProviderCommand,
  DeleteIdentityProviderCommand,
  UpdateIdentityProviderCommand,
  UpdateUserIdentityProviderCommand,
} from './commands/identity-provider.commands';
import { GetIdentityProviderQuery, ListIdentityProvidersQuery } from './queries/identity-provider.queries';

/** Identity provider configurations (admin only) and moving a user between providers. */
@Controller('v2')
export class IdentityProvidersController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @PostJson('idps')
  @RouteSchema({ body: createIdentityProviderConfigRequestSchema })
  async create(
    @CurrentClaims() claims: Claims,
    @Body() body: { identityProviderConfig?: Partial<IdentityProviderConfig> },
  ) {
    const config = await this.commands.execute(
      new CreateIdentityProviderCommand(claims, identityProviderConfigFromJs(body.identityProviderConfig)),
    );
    return { identityProviderConfig: identityProviderConfigToJs(config) };
  }

  @Get('idps')
  async list(@CurrentClaims() claims: Claims) {
    const configs: IdentityProviderConfig[] = await this.queries.execute(new ListIdentityProvidersQuery(claims));
    return { identityProviderConfigs: configs.map(identityProviderConfigToJs) };
  }

  @Get('idps/:idpId')
  async get(@CurrentClaims() claims: Claims, @Param('idpId') id: string) {
    return {
      identityProviderConfig: identityProviderConfigToJs(
        await this.queries.execute(new GetIdentityProviderQuery(claims, id)),
      ),
    };
  }

  @Patch('idps/:idpId')
  @RouteSchema({ body: updateIdentityProviderConfigRequestSchema })
  async update(
    @CurrentClaims() claims: Claims,
    @Param('idpId') id: string,
    @Body()
    body: { identityProviderConfig?: Partial<IdentityProviderConfig>; updateMask?: { paths?: string[] } | null },
  ) {
    const config = await this.commands.execute(
      new UpdateIdentityProviderCommand(
        claims,
        id,
        identityProviderConfigFromJs(body.identityProviderConfig),
        body.updateMask ? (body.updateMask.paths ?? []) : null,
      ),
    );
    return { identityProviderConfig: identityProviderConfigToJs(config) };
  }

  @Delete('idps/:idpId')
  async delete(@CurrentClaims() claims: Claims, @Param('idpId') id: string) {
    await this.commands.execute(new DeleteIdentityProviderCommand(claims, id));
    return {};
  }

  @Patch('users/:userId/identity-provider-id')
  @RouteSchema({ body: updateUserIdentityProviderIdRequestSchema })
  async moveUser(
    @CurrentClaims() claims: Claims,
    @Param('userId') userId: string,
    @Body() body: { userId?: string; sourceIdentityProviderId?: string; targetIdentityProviderId?: string },
  ) {
    await this.commands.execute(
      new UpdateUserIdentityProviderCommand(
        claims,
        userId,
        body.userId ?? '',
        body.sourceIdentityProviderId ?? '',
        body.targetIdentityProviderId ?? '',
      ),
    );
    return {};
  }
}
