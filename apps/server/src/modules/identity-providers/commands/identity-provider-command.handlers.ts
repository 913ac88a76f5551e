import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import {
  decideCreateIdentityProvider,
  decideDeleteIdentityProvider,
  decideMoveUserIdentityProvider,
  decideUpdateIdentityProvider,
  jsonInvalidArgument,
  missingField,
  requireIdentityProviderId,
  requireParticipantAdmin,
  validateIdentityProviderIdField,
  validateUserId,
  type IdentityProviderConfig,
} from '@ledgerline/domain';
import { EventStore, IdentityProvidersRepository, UsersRepository } from '@ledgerline/store';
import {
  CreateIdentityProviderCommand,
  DeleteIdentityProviderCommand,
  UpdateIdentityProviderCommand,
  UpdateUserIdentityProviderCommand,
} from './identity-provider.commands';

/** The identity-provider config service and the user-IDP move need ParticipantAdmin. */

@CommandHandler(CreateIdentityProviderCommand)
export class CreateIdentityProviderHandler implements ICommandHandler<CreateIdentityProviderCommand> {
  constructor(private readonly store: EventStore, private readonly idps: IdentityProvidersRepository) {}

  async execute({ claims, config }: CreateIdentityProviderCommand): Promise<IdentityProviderConfig> {
    requireParticipantAdmin(claims);
    return this.store.execute(async (tx) => {
      const state = await this.idps.state(tx.db, config.identityProviderId, config.issuer);
      await tx.append(decideCreateIdentityProvider(state, config));
      return config;
    });
  }
}

@CommandHandler(UpdateIdentityProviderCommand)
export class UpdateIdentityProviderHandler implements ICommandHandler<UpdateIdentityProviderCommand> {
  constructor(private readonly store: EventStore, private readonly idps: IdentityProvidersRepository) {}

  async execute({ claims, pathId, config, maskPaths }: UpdateIdentityProviderCommand): Promise<IdentityProviderConfig> {
    const request = { ...config, identityProviderId: config.identityProviderId || pathId };
    if (request.identityProviderId !== pathId) {
      throw jsonInvalidArgument(`${pathId} does not match identity provider id in body ${request.identityProviderId}`);
    }
    requireParticipantAdmin(claims);
    if (maskPaths === null) throw missingField('update_mask');
    return this.store.execute(async (tx) => {
      const state = await this.idps.state(tx.db, request.identityProviderId, request.issuer);
      const { events, config: next } = decideUpdateIdentityProvider(state, request, maskPaths);
      await tx.append(events);
      return next;
    });
  }
}

@CommandHandler(DeleteIdentityProviderCommand)
export class DeleteIdentityProviderHandler implements ICommandHandler<DeleteIdentityProviderCommand> {
  constructor(private readonly store: EventStore, private readonly idps: IdentityProvidersRepository) {}

  async execute({ claims, id }: DeleteIdentityProviderCommand): Promise<void> {
    requireParticipantAdmin(claims);
    requireIdentityProviderId(id);
    await this.store.execute(async (tx) => {
      await tx.append(decideDeleteIdentityProvider(await this.idps.state(tx.db, id, ''), id));
    });
  }
}

@CommandHandler(UpdateUserIdentityProviderCommand)
export class UpdateUserIdentityProviderHandler implements ICommandHandler<UpdateUserIdentityProviderCommand> {
  constructor(private readonly store: EventStore, private readonly idps: IdentityProvidersRepository, private readonly users: UsersRepository) {}

  async execute({ claims, pathUserId, userId, source, target }: UpdateUserIdentityProviderCommand): Promise<void> {
    const id = userId || pathUserId;
    if (id !== pathUserId) throw jsonInvalidArgument(`${pathUserId} does not match user id in body ${id}`);
    requireParticipantAdmin(claims);
    validateUserId(id);
    validateIdentityProviderIdField(source, 'source_identity_provider_id');
    validateIdentityProviderIdField(target, 'target_identity_provider_id');
    await this.store.execute(async (tx) => {
      const user = await this.users.get(tx.db, id);
      const events = decideMoveUserIdentityProvider(
        { user, sourceExists: await this.idps.exists(tx.db, source), targetExists: await this.idps.exists(tx.db, target) },
        { userId: id, source, target },
      );
      await tx.append(events);
    });
  }
}
