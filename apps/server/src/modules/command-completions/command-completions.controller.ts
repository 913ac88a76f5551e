import { Body, Controller, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { RouteSchema } from '@nestjs/platform-fastify';
import type { Claims, CompletionsRequest } from '@ledgerline/domain';
import { CurrentClaims } from '@ledgerline/auth';
import {
  completionStreamRequestSchema,
  decodeCompletionStreamRequest,
  decodeGetCompletionByHashRequest,
  decodeGetCompletionsRequest,
  getCompletionByHashRequestSchema,
  getCompletionsRequestSchema,
  int64Query,
} from '@ledgerline/wire';
import { PostJson } from '../../http/routes';
import { GetCompletionByHashQuery } from './queries/completion-by-hash.query';
import { ListCompletionsQuery } from './queries/list-completions.query';

/**
 * POST /v2/commands/completions (CompletionStreamRequest) and POST /v2/commands/command-completions (GetCompletionsRequest),
 * with the query parameters `limit` and `stream_idle_timeout_ms` of the update lists; POST /v2/commands/completion-by-hash
 * (Canton 3.5.10).
 */
@Controller('v2/commands')
export class CommandCompletionsController {
  constructor(private readonly queries: QueryBus) {}

  @PostJson('completions')
  @RouteSchema({ body: completionStreamRequestSchema })
  completions(
    @CurrentClaims() claims: Claims,
    @Body() body: Record<string, unknown>,
    @Query() q: Record<string, unknown>,
  ) {
    return this.list(claims, { form: 'stream', request: decodeCompletionStreamRequest(body) }, q);
  }

  @PostJson('command-completions')
  @RouteSchema({ body: getCompletionsRequestSchema })
  commandCompletions(
    @CurrentClaims() claims: Claims,
    @Body() body: Record<string, unknown>,
    @Query() q: Record<string, unknown>,
  ) {
    return this.list(claims, { form: 'get', request: decodeGetCompletionsRequest(body) }, q);
  }

  @PostJson('completion-by-hash')
  @RouteSchema({ body: getCompletionByHashRequestSchema })
  completionByHash(@CurrentClaims() claims: Claims, @Body() body: Record<string, unknown>) {
    return this.queries.execute(
      new GetCompletionByHashQuery(claims, decodeGetCompletionByHashRequest(body).transactionHash),
    );
  }

  private list(claims: Claims, request: CompletionsRequest, q: Record<string, unknown>) {
    const limit = int64Query('limit', q.limit);
    const idle = int64Query('stream_idle_timeout_ms', q.stream_idle_timeout_ms);
    return this.queries.execute(new ListCompletionsQuery(claims, request, limit, idle));
  }
}
