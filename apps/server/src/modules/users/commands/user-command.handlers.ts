import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import {
  authorizeUpdateUser,
  checkUserPathMatchesBody,
  decideCreateUser,
  decideDeleteUser,
  decideGrantRights,
  decideRevokeRights,
  isParticipantAdmin,
  matchIdentityProviderId,
  permissionDenied,
  requireAdminOrIdpAdmin,
  requireUserInCallerIdentityProvider,
  validateUpdateUser,
  validateUserId,
  type Claims,
  type Right,
  type UserEvent,
  type UserState,
} from '@ledgerline/domain';
import { EventStore, userUpdateDecider, UsersRepository } from '@ledgerline/store';
import { CreateUserCommand, DeleteUserCommand, GrantUserRightsCommand, RevokeUserRightsCommand, UpdateUserCommand } from './user.commands';

/** Only a participant admin may hand out administrative rights. */
function checkGrantable(claims: Claims, rights: Right[]): void {
  if (!isParticipantAdmin(claims) && rights.some((r) => r.kind === 'ParticipantAdmin' || r.kind === 'IdentityProviderAdmin')) {
    throw permissionDenied('Only a participant admin may grant or revoke administrative rights');
  }
}

@CommandHandler(CreateUserCommand)
export class CreateUserHandler implements ICommandHandler<CreateUserCommand> {
  constructor(private readonly store: EventStore, private readonly users: UsersRepository) {}

  async execute({ claims, user, rights }: CreateUserCommand) {
    requireAdminOrIdpAdmin(claims);
    const idp = matchIdentityProviderId(claims, user.identityProviderId);
    checkGrantable(claims, rights);
    validateUserId(user.id, 'user.id');
    const record = { ...user, identityProviderId: idp };
    return this.store.execute(async (tx) => {
      await tx.append(decideCreateUser(await this.users.state(tx.db, user.id), record, rights));
      return (await this.users.get(tx.db, user.id))!;
    });
  }
}

/** Grant and revoke share one path: authorize, then decide against the stored rights inside the writer. */
async function changeRights(
  store: EventStore,
  users: UsersRepository,
  { claims, userId, rights, identityProviderId }: GrantUserRightsCommand | RevokeUserRightsCommand,
  decide: (state: UserState) => { events: UserEvent[]; changed: Right[] },
): Promise<Right[]> {
  requireAdminOrIdpAdmin(claims);
  matchIdentityProviderId(claims, identityProviderId);
  validateUserId(userId);
  checkGrantable(claims, rights);
  return store.execute(async (tx) => {
    const state = await users.state(tx.db, userId);
    requireUserInCallerIdentityProvider(claims, state.user?.identityProviderId);
    const { events, changed } = decide(state);
    if (events.length) await tx.append(events);
    return changed;
  });
}

@CommandHandler(GrantUserRightsCommand)
export class GrantUserRightsHandler implements ICommandHandler<GrantUserRightsCommand> {
  constructor(private readonly store: EventStore, private readonly users: UsersRepository) {}

  execute(command: GrantUserRightsCommand) {
    return changeRights(this.store, this.users, command, (state) => {
      const { events, newlyGranted } = decideGrantRights(state, command.userId, command.rights);
      return { events, changed: newlyGranted };
    });
  }
}

@CommandHandler(RevokeUserRightsCommand)
export class RevokeUserRightsHandler implements ICommandHandler<RevokeUserRightsCommand> {
  constructor(private readonly store: EventStore, private readonly users: UsersRepository) {}

  execute(command: RevokeUserRightsCommand) {
    return changeRights(this.store, this.users, command, (state) => {
      const { events, newlyRevoked } = decideRevokeRights(state, command.userId, command.rights);
      return { events, changed: newlyRevoked };
    });
  }
}

@CommandHandler(DeleteUserCommand)
export class DeleteUserHandler implements ICommandHandler<DeleteUserCommand> {
  constructor(private readonly store: EventStore, private readonly users: UsersRepository) {}

  async execute({ claims, userId }: DeleteUserCommand) {
    requireAdminOrIdpAdmin(claims);
    validateUserId(userId);
    await this.store.execute(async (tx) => {
      const state = await this.users.state(tx.db, userId);
      requireUserInCallerIdentityProvider(claims, state.user?.identityProviderId);
      await tx.append(decideDeleteUser(state, userId));
    });
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
