import { Injectable, OnModuleInit } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { decodeExecuteSubmissionBody, executeSubmissionBodySchema, type ExecuteSubmissionBody } from '@ledgerline/wire';
import { DirectRoutes } from '../../http/direct-route';
import { ExecuteSubmissionCommand } from './commands/execute-submission.command';

/**
 * POST /v2/interactive-submission/executeAndWait: the busiest write endpoint, mounted as a direct route (no Nest router
 * per request; same auth, validation and errors, see DirectRoutes). It dispatches ExecuteSubmissionCommand as the
 * controller does for its asynchronous sibling `execute`.
 */
@Injectable()
export class ExecuteAndWaitRoute implements OnModuleInit {
  constructor(
    private readonly routes: DirectRoutes,
    private readonly commands: CommandBus,
  ) {}

  onModuleInit(): void {
    this.routes.mount({
      url: '/v2/interactive-submission/executeAndWait',
      body: executeSubmissionBodySchema,
      handle: (claims, body) =>
        this.commands.execute(
          new ExecuteSubmissionCommand(
            claims,
            decodeExecuteSubmissionBody(body as unknown as ExecuteSubmissionBody),
            'wait',
          ),
        ),
    });
  }
}
