import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import {
  authorizeUpdateUser,
  authorizeUserRightsChange,
  checkUserPathMatchesBody,
  decideCreateUser,
  decideDeleteUser,
  decideGrantRights,
  decideRevokeRights,
  needsPartyRecordsForRights,
  partiesOfRights,
  requireAdminOrIdpAdmin,
  requireUserInCallerIdentityProvider,
  validateRequestAnnotations,
  validateUpdateUser,
  verifyPartiesExistInIdentityProvider,
  validateUserId,
  type Claims,
  type Right,
  type UserEvent,
  type UserState,
} from '@ledgerline/domain';
import { EventStore, PartiesRepository, userUpdateDecider, UsersRepository } from '@ledgerline/store';
import { CreateUserCommand, DeleteUserCommand, GrantUserRightsCommand, RevokeUserRightsCommand, UpdateUserCommand } from './user.commands';

/** The request's parties whose records are in `identityProviderId` (looked up only when a non-admin names parties). */
async function partiesInProvider(db: Parameters<PartiesRepository['getMany']>[0], parties: PartiesRepository, claims: Claims, rights: Right[], identityProviderId: string): Promise<Set<string>> {
  if (!needsPartyRecordsForRights(claims, rights)) return new Set();
  const records = await parties.getMany(db, partiesOfRights(rights));
  return new Set(records.filter((r) => r.identityProviderId === identityProviderId).map((r) => r.party));
}

@CommandHandler(CreateUserCommand)
export class CreateUserHandler implements ICommandHandler<CreateUserCommand> {
  constructor(
    private readonly store: EventStore,
    private readonly users: UsersRepository,
    private readonly parties: PartiesRepository,
  ) {}

  async execute({ claims, user, rights }: CreateUserCommand) {
    const idp = authorizeUserRightsChange(claims, rights, user.identityProviderId);
    validateUserId(user.id, 'user.id');
    validateRequestAnnotations(user.annotations, { field: 'user.metadata.annotations', allowEmptyValues: false });
    const record = { ...user, identityProviderId: idp };
    return this.store.execute(async (tx) => {
      verifyPartiesExistInIdentityProvider(claims, rights, idp, await partiesInProvider(tx.db, this.parties, claims, rights, idp));
      await tx.append(decideCreateUser(await this.users.state(tx.db, user.id), record, rights));
      return (await this.users.get(tx.db, user.id))!;
    });
  }
}

/** Grant and revoke share one path: authorize, then decide against the stored rights inside the writer. */
async function changeRights(
  store: EventStore,
  users: UsersRepository,
  parties: PartiesRepository,
  { claims, userId, rights, identityProviderId }: GrantUserRightsCommand | RevokeUserRightsCommand,
  decide: (state: UserState) => { events: UserEvent[]; changed: Right[] },
): Promise<Right[]> {
  const idp = authorizeUserRightsChange(claims, rights, identityProviderId);
  validateUserId(userId);
  return store.execute(async (tx) => {
    verifyPartiesExistInIdentityProvider(claims, rights, idp, await partiesInProvider(tx.db, parties, claims, rights, idp));
    const state = await users.state(tx.db, userId);
    requireUserInCallerIdentityProvider(claims, state.user?.identityProviderId);
    const { events, changed } = decide(state);
    if (events.length) await tx.append(events);
    return changed;
  });
}

@CommandHandler(GrantUserRightsCommand)
export class GrantUserRightsHandler implements ICommandHandler<GrantUserRightsCommand> {
  constructor(
    private readonly store: EventStore,
    private readonly users: UsersRepository,
    private readonly parties: PartiesRepository,
  ) {}

  execute(command: GrantUserRightsCommand) {
    return changeRights(this.store, this.users, this.parties, command, (state) => {
      const { events, newlyGranted } = decideGrantRights(state, command.userId, command.rights);
      return { events, changed: newlyGranted };
    });
  }
}

@CommandHandler(RevokeUserRightsCommand)
export class RevokeUserRightsHandler implements ICommandHandler<RevokeUserRightsCommand> {
  constructor(
    private readonly store: EventStore,
    private readonly users: UsersRepository,
    private readonly parties: PartiesRepository,
  ) {}

  execute(command: RevokeUserRightsCommand) {
    return changeRights(this.store, this.users, this.parties, command, (state) => {
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
