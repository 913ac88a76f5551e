import { Module } from '@nestjs/common';
import { CreateUserHandler, DeleteUserHandler, GrantUserRightsHandler, RevokeUserRightsHandler } from './commands/user-command.handlers';
import { GetUserHandler, ListUserRightsHandler, ListUsersHandler } from './queries/user-query.handlers';
import { UsersController } from './users.controller';

@Module({
  controllers: [UsersController],
  providers: [CreateUserHandler, GrantUserRightsHandler, RevokeUserRightsHandler, DeleteUserHandler, GetUserHandler, ListUsersHandler, ListUserRightsHandler],
})
export class UsersModule {}
