import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import {
  jsonInvalidArgument,
  missingField,
  requireIdentityProviderId,
  requireParticipantAdmin,
  validateIdentityProviderIdField,
  validateUserId,
  type IdentityProviderConfig,
} from '@ledgerline/domain';
import { EventStore, identityProviderConfigDecider, userIdentityProviderDecider } from '@ledgerline/store';
import {
  CreateIdentityProviderCommand,
  DeleteIdentityProviderCommand,
  UpdateIdentityProviderCommand,
  UpdateUserIdentityProviderCommand,
} from './identity-provider.commands';

/** The identity-provider config service and the user-IDP move need ParticipantAdmin. */

@CommandHandler(CreateIdentityProviderCommand)
export class CreateIdentityProviderHandler implements ICommandHandler<CreateIdentityProviderCommand> {
  constructor(private readonly store: EventStore) {}

  async execute({ claims, config }: CreateIdentityProviderCommand): Promise<IdentityProviderConfig> {
    requireParticipantAdmin(claims);
    return (await this.store.decide(identityProviderConfigDecider, { kind: 'create', config }))!;
  }
}

@CommandHandler(UpdateIdentityProviderCommand)
export class UpdateIdentityProviderHandler implements ICommandHandler<UpdateIdentityProviderCommand> {
  constructor(private readonly store: EventStore) {}

  async execute({ claims, pathId, config, maskPaths }: UpdateIdentityProviderCommand): Promise<IdentityProviderConfig> {
    const request = { ...config, identityProviderId: config.identityProviderId || pathId };
    if (request.identityProviderId !== pathId) {
      throw jsonInvalidArgument(`${pathId} does not match identity provider id in body ${request.identityProviderId}`);
    }
    requireParticipantAdmin(claims);
    if (maskPaths === null) throw missingField('update_mask');
    return (await this.store.decide(identityProviderConfigDecider, { kind: 'update', config: request, maskPaths }))!;
  }
}

@CommandHandler(DeleteIdentityProviderCommand)
export class DeleteIdentityProviderHandler implements ICommandHandler<DeleteIdentityProviderCommand> {
  constructor(private readonly store: EventStore) {}

  async execute({ claims, id }: DeleteIdentityProviderCommand): Promise<void> {
    requireParticipantAdmin(claims);
    requireIdentityProviderId(id);
    await this.store.decide(identityProviderConfigDecider, { kind: 'delete', identityProviderId: id });
  }
}

@CommandHandler(UpdateUserIdentityProviderCommand)
export class UpdateUserIdentityProviderHandler implements ICommandHandler<UpdateUserIdentityProviderCommand> {
  constructor(private readonly store: EventStore) {}

  async execute({ claims, pathUserId, userId, source, target }: UpdateUserIdentityProviderCommand): Promise<void> {
    const id = userId || pathUserId;
    if (id !== pathUserId) throw jsonInvalidArgument(`${pathUserId} does not match user id in body ${id}`);
    requireParticipantAdmin(claims);
    validateUserId(id);
    validateIdentityProviderIdField(source, 'source_identity_provider_id');
    validateIdentityProviderIdField(target, 'target_identity_provider_id');
    await this.store.decide(userIdentityProviderDecider, { userId: id, source, target });
  }
}
