import { Body, Controller } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { RouteSchema } from '@nestjs/platform-fastify';
import type { Claims } from '@ledgerline/domain';
import { CurrentClaims } from '@ledgerline/auth';
import {
  decodeExecuteSubmissionBody,
  decodeTransactionFormat,
  executeAndWaitForTransactionBodySchema,
  executeSubmissionBodySchema,
  type ExecuteSubmissionBody,
} from '@ledgerline/wire';
import { PostJson } from '../../http/routes';
import { ExecuteSubmissionCommand } from './commands/execute-submission.command';

/**
 * Execution of externally signed prepared transactions (prepare lives with external-party onboarding). The synchronous
 * variant, executeAndWait, is a direct route (execute-and-wait.route.ts).
 */
@Controller('v2/interactive-submission')
export class ExecuteSubmissionController {
  constructor(private readonly commands: CommandBus) {}

  /** executeAndWait answering with the transaction, in the request's `transactionFormat` (or the default one). */
  @PostJson('executeAndWaitForTransaction')
  @RouteSchema({ body: executeAndWaitForTransactionBodySchema })
  executeAndWaitForTransaction(
    @CurrentClaims() claims: Claims,
    @Body() body: ExecuteSubmissionBody & { transactionFormat?: unknown },
  ) {
    return this.commands.execute(
      new ExecuteSubmissionCommand(
        claims,
        decodeExecuteSubmissionBody(body),
        'transaction',
        decodeTransactionFormat(body.transactionFormat),
      ),
    );
  }

  /**
   * The asynchronous variant: same checks; answers `{}` once the submission is decided (committed, or rejected at commit
   * with a rejected completion).
   */
  @PostJson('execute')
  @RouteSchema({ body: executeSubmissionBodySchema })
  async execute(@CurrentClaims() claims: Claims, @Body() body: ExecuteSubmissionBody): Promise<Record<string, never>> {
    await this.commands.execute(new ExecuteSubmissionCommand(claims, decodeExecuteSubmissionBody(body), 'async'));
    return {};
  }
}
