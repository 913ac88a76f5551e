import { Module } from '@nestjs/common';
import { PartiesRepository } from '@ledgerline/store';
import { CreateUserHandler, DeleteUserHandler, GrantUserRightsHandler, RevokeUserRightsHandler, UpdateUserHandler } from './commands/user-command.handlers';
import { GetUserHandler, ListUserRightsHandler, ListUsersHandler } from './queries/user-query.handlers';
import { UsersController } from './users.controller';

@Module({
  controllers: [UsersController],
  providers: [PartiesRepository, CreateUserHandler, UpdateUserHandler, GrantUserRightsHandler, RevokeUserRightsHandler, DeleteUserHandler, GetUserHandler, ListUsersHandler, ListUserRightsHandler],
})
export class UsersModule {}
