import { Module } from '@nestjs/common';
import {
  CreateUserHandler,
  DeleteUserHandler,
  GrantUserRightsHandler,
  RevokeUserRightsHandler,
  UpdateUserHandler,
} from './commands/user-command.handlers';
import { GetUserHandler, ListUserRightsHandler, ListUsersHandler } from './queries/user-query.handlers';
import { UsersController } from './users.controller';

@Module({
  controllers: [UsersController],
  providers: [
    CreateUserHandler,
    UpdateUserHandler,
    GrantUserRightsHandler,
    RevokeUserRightsHandler,
    DeleteUserHandler,
    GetUserHandler,
    ListUsersHandler,
    ListUserRightsHandler,
  ],
})
export class UsersModule {}
