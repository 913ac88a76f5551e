import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import {
  authorizeUpdateUser,
  authorizeUserRightsChange,
  checkUserPathMatchesBody,
  requireAdminOrIdpAdmin,
  validateRequestAnnotations,
  validateUpdateUser,
  validateUserId,
} from '@ledgerline/domain';
import {
  EventStore,
  userCreationDecider,
  userDeletionDecider,
  userRightsDecider,
  userUpdateDecider,
} from '@ledgerline/store';
import {
  CreateUserCommand,
  DeleteUserCommand,
  GrantUserRightsCommand,
  RevokeUserRightsCommand,
  UpdateUserCommand,
} from './user.commands';

@CommandHandler(CreateUserCommand)
export class CreateUserHandler implements ICommandHandler<CreateUserCommand> {
  constructor(private readonly store: EventStore) {}

  async execute({ claims, user, rights }: CreateUserCommand) {
    const idp = authorizeUserRightsChange(claims, rights, user.identityProviderId);
    validateUserId(user.id, 'user.id');
    validateRequestAnnotations(user.annotations, { field: 'user.metadata.annotations', allowEmptyValues: false });
    return (await this.store.decide(userCreationDecider, {
      claims,
      user: { ...user, identityProviderId: idp },
      rights,
    }))!;
  }
}

/** Grant and revoke share one path: authorize, then the writer decides against the stored rights. */
function changeRights(
  store: EventStore,
  kind: 'grant' | 'revoke',
  { claims, userId, rights, identityProviderId }: GrantUserRightsCommand | RevokeUserRightsCommand,
) {
  const idp = authorizeUserRightsChange(claims, rights, identityProviderId);
  validateUserId(userId);
  return store.decide(userRightsDecider, { kind, claims, userId, rights, identityProviderId: idp });
}

@CommandHandler(GrantUserRightsCommand)
export class GrantUserRightsHandler implements ICommandHandler<GrantUserRightsCommand> {
  constructor(private readonly store: EventStore) {}

  execute(command: GrantUserRightsCommand) {
    return changeRights(this.store, 'grant', command);
  }
}

@CommandHandler(RevokeUserRightsCommand)
export class RevokeUserRightsHandler implements ICommandHandler<RevokeUserRightsCommand> {
  constructor(private readonly store: EventStore) {}

  execute(command: RevokeUserRightsCommand) {
    return changeRights(this.store, 'revoke', command);
  }
}

@CommandHandler(DeleteUserCommand)
export class DeleteUserHandler implements ICommandHandler<DeleteUserCommand> {
  constructor(private readonly store: EventStore) {}

  async execute({ claims, userId }: DeleteUserCommand) {
    requireAdminOrIdpAdmin(claims);
    validateUserId(userId);
    await this.store.decide(userDeletionDecider, { claims, userId });
  }
}
@CommandHandler(UpdateUserCommand)
export class UpdateUserHandler implements ICommandHandler<UpdateUserCommand> {
  constructor(private readonly store: EventStore) {}

  execute({ claims, pathUserId, body }: UpdateUserCommand) {
    checkUserPathMatchesBody(pathUserId, body);
    const identityProviderId = authorizeUpdateUser(claims, body);
    // The writer decides updates of one user one after the other: of two with the same resourceVersion, one wins.
    return this.store.decide(userUpdateDecider, validateUpdateUser(claims, body, identityProviderId));
  }
}
