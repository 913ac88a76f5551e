import { Module } from '@nestjs/common';
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
