import { Injectable, OnModuleInit } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { Claims } from '@ledgerline/domain';
import {
  decodeJsCommands,
  decodeTransactionFormat,
  jsCommandsSchema,
  simulateCommandsSchema,
  submitAndWaitForTransactionSchema,
  toInt64,
} from '@ledgerline/wire';
import { DirectRoutes } from '../../http/direct-route';
import { SubmitCommandsCommand } from './commands/submit-commands.command';
import { SimulateCommandsQuery } from './queries/simulate-commands.query';

/**
 * POST /v2/commands/submit-and-wait, -for-transaction, -for-transaction-tree (deprecated, still served by the reference
 * 3.5) and async/submit. Mounted as direct routes (the write path of local parties; same auth, validation and errors as a
 * controller, see DirectRoutes), each dispatching SubmitCommandsCommand; and POST /v2/commands/simulate, their dry run
 * (SimulateCommandsQuery).
 */
@Injectable()
export class CommandSubmissionRoutes implements OnModuleInit {
  constructor(
    private readonly routes: DirectRoutes,
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  onModuleInit(): void {
    const submit = (mode: 'wait' | 'tree' | 'async') => (claims: Claims, body: Record<string, unknown>) =>
      this.commands.execute(new SubmitCommandsCommand(claims, decodeJsCommands(body), mode));
    this.routes.mount({ url: '/v2/commands/submit-and-wait', body: jsCommandsSchema, handle: submit('wait') });
    this.routes.mount({
      url: '/v2/commands/submit-and-wait-for-transaction-tree',
      body: jsCommandsSchema,
      handle: submit('tree'),
    });
    this.routes.mount({ url: '/v2/commands/async/submit', body: jsCommandsSchema, handle: submit('async') });
    this.routes.mount({
      url: '/v2/commands/submit-and-wait-for-transaction',
      body: submitAndWaitForTransactionSchema,
      handle: (claims, body) =>
        this.commands.execute(
          new SubmitCommandsCommand(
            claims,
            decodeJsCommands(body.commands as Record<string, unknown>, 'commands'),
            'transaction',
            decodeTransactionFormat(body.transactionFormat),
          ),
        ),
    });
    this.routes.mount({
      url: '/v2/commands/simulate',
      body: simulateCommandsSchema,
      handle: (claims, body, traceId) =>
        this.queries.execute(
          new SimulateCommandsQuery(
            claims,
            decodeJsCommands(body.commands as Record<string, unknown>, 'commands'),
            decodeTransactionFormat(body.transactionFormat),
            body.atOffset === undefined ? null : toInt64(body.atOffset),
            traceId,
          ),
        ),
    });
  }
}
