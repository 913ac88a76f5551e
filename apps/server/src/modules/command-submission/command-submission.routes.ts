import { Injectable, OnModuleInit } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { Claims } from '@ledgerline/domain';
import {
  decodeJsCommands,
  decodeTransactionFormat,
  jsCommandsSchema,
  submitAndWaitForTransactionSchema,
} from '@ledgerline/wire';
import { DirectRoutes } from '../../http/direct-route';
import { SubmitCommandsCommand } from './commands/submit-commands.command';

/**
 * POST /v2/commands/submit-and-wait, -for-transaction, -for-transaction-tree (deprecated, still served by the reference
 * 3.5) and async/submit. Mounted as direct routes (the write path of local parties; same auth, validation and errors as a
 * controller, see DirectRoutes), each dispatching SubmitCommandsCommand.
 */
@Injectable()
export class CommandSubmissionRoutes implements OnModuleInit {
  constructor(
    private readonly routes: DirectRoutes,
    private readonly commands: CommandBus,
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
  }
}
