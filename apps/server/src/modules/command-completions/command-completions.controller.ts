import { Body, Controller, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { RouteSchema } from '@nestjs/platform-fastify';
import type { Claims } from '@ledgerline/domain';
import { CurrentClaims } from '@ledgerline/auth';
import { completionStreamRequestSchema, decodeCompletionStreamRequest, int64Query } from '@ledgerline/wire';
import { PostJson } from '../../http/routes';
import { ListCompletionsQuery } from './queries/list-completions.query';

/** POST /v2/commands/completions (query parameters `limit`, `stream_idle_timeout_ms`, as the update lists). */
@Controller('v2/commands')
export class CommandCompletionsController {
  constructor(private readonly queries: QueryBus) {}

  @PostJson('completions')
  @RouteSchema({ body: completionStreamRequestSchema })
  completions(@CurrentClaims() claims: Claims, @Body() body: Record<string, unknown>, @Query() q: Record<string, unknown>) {
    const limit = int64Query('limit', q.limit);
    const idle = int64Query('stream_idle_timeout_ms', q.stream_idle_timeout_ms);
    return this.queries.execute(new ListCompletionsQuery(claims, decodeCompletionStreamRequest(body), limit, idle));
  }
}
