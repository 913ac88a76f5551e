import { Module } from '@nestjs/common';
import { IdentityProvidersRepository } from '@ledgerline/store';
import {
  CreateIdentityProviderHandler,
  DeleteIdentityProviderHandler,
  UpdateIdentityProviderHandler,
  UpdateUserIdentityProviderHandler,
} from './commands/identity-provider-command.handlers';
import { GetIdentityProviderHandler, ListIdentityProvidersHandler } from './queries/identity-provider-query.handlers';
import { IdentityProvidersController } from './identity-providers.controller';
import { ProjectionIdentityProviderDirectory } from './identity-provider-directory.provider';

@Module({
  controllers: [IdentityProvidersController],
  providers: [
    IdentityProvidersRepository,
    ProjectionIdentityProviderDirectory,
    CreateIdentityProviderHandler,
    UpdateIdentityProviderHandler,
    DeleteIdentityProviderHandler,
    UpdateUserIdentityProviderHandler,
    GetIdentityProviderHandler,
    ListIdentityProvidersHandler,
  ],
})
export class IdentityProvidersModule {}
