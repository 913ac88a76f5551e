import { Body, Controller, Get, Param, Query } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { RouteSchema } from '@nestjs/platform-fastify';
import type { Claims, TransactionForm } from '@ledgerline/domain';
import { CurrentClaims } from '@ledgerline/auth';
import {
  decodeGetTransactionByOffsetRequest,
  decodeGetUpdateByHashRequest,
  decodeGetUpdateByIdRequest,
  decodeGetUpdateByOffsetRequest,
  decodeGetUpdatesPageRequest,
  decodeGetUpdatesRequest,
  getTransactionByOffsetRequestSchema,
  getUpdateByHashRequestSchema,
  getUpdateByIdRequestSchema,
  getUpdateByOffsetRequestSchema,
  getUpdatesPageRequestSchema,
  getUpdatesRequestSchema,
  int64Path,
  int64Query,
  int64Schema,
  listQuery,
  toInt64,
} from '@ledgerline/wire';
import { PostJson } from '../../http/routes';
import { PruneLedgerCommand } from './commands/prune.command';
import {
  GetTransactionByOffsetQuery,
  GetTransactionTreeByIdQuery,
  GetTransactionTreeByOffsetQuery,
  GetUpdateByHashQuery,
  GetUpdateByIdQuery,
  GetUpdateByOffsetQuery,
  GetUpdatesPageQuery,
  ListUpdatesQuery,
} from './queries/update.queries';

/**
 * Reading the ledger over HTTP: the update list (flats and /v2/updates share one engine), the update lookups and pages,
 * and pruning. The transaction lookup by id is a direct route (transaction-by-id.route.ts).
 */
@Controller('v2')
export class UpdatesController {
  constructor(
    private readonly queries: QueryBus,
    private readonly commands: CommandBus,
  ) {}

  @PostJson('updates/flats')
  @RouteSchema({ body: getUpdatesRequestSchema })
  flats(@CurrentClaims() claims: Claims, @Body() body: Record<string, unknown>, @Query() q: Record<string, unknown>) {
    return this.list(claims, body, q);
  }

  @PostJson('updates')
  @RouteSchema({ body: getUpdatesRequestSchema })
  updates(@CurrentClaims() claims: Claims, @Body() body: Record<string, unknown>, @Query() q: Record<string, unknown>) {
    return this.list(claims, body, q);
  }

  /** Deprecated upstream: the update list with transactions as JsTransactionTree (LEDGER_EFFECTS for the legacy filter). */
  @PostJson('updates/trees')
  @RouteSchema({ body: getUpdatesRequestSchema })
  trees(@CurrentClaims() claims: Claims, @Body() body: Record<string, unknown>, @Query() q: Record<string, unknown>) {
    return this.list(claims, body, q, 'tree');
  }

  @Get('updates/transaction-tree-by-id/:updateId')
  transactionTreeById(
    @CurrentClaims() claims: Claims,
    @Param('updateId') updateId: string,
    @Query() q: Record<string, unknown>,
  ) {
    return this.queries.execute(new GetTransactionTreeByIdQuery(claims, updateId, listQuery(q.parties)));
  }

  @Get('updates/transaction-tree-by-offset/:offset')
  transactionTreeByOffset(
    @CurrentClaims() claims: Claims,
    @Param('offset') offset: string,
    @Query() q: Record<string, unknown>,
  ) {
    return this.queries.execute(
      new GetTransactionTreeByOffsetQuery(claims, int64Path('offset', offset), listQuery(q.parties)),
    );
  }

  @PostJson('updates/update-by-id')
  @RouteSchema({ body: getUpdateByIdRequestSchema })
  updateById(@CurrentClaims() claims: Claims, @Body() body: Record<string, unknown>) {
    return this.queries.execute(new GetUpdateByIdQuery(claims, decodeGetUpdateByIdRequest(body)));
  }

  @PostJson('updates/update-by-offset')
  @RouteSchema({ body: getUpdateByOffsetRequestSchema })
  updateByOffset(@CurrentClaims() claims: Claims, @Body() body: Record<string, unknown>) {
    return this.queries.execute(new GetUpdateByOffsetQuery(claims, decodeGetUpdateByOffsetRequest(body)));
  }

  @PostJson('updates/update-by-hash')
  @RouteSchema({ body: getUpdateByHashRequestSchema })
  updateByHash(@CurrentClaims() claims: Claims, @Body() body: Record<string, unknown>) {
    return this.queries.execute(new GetUpdateByHashQuery(claims, decodeGetUpdateByHashRequest(body)));
  }

  @PostJson('updates/transaction-by-offset')
  @RouteSchema({ body: getTransactionByOffsetRequestSchema })
  transactionByOffset(@CurrentClaims() claims: Claims, @Body() body: Record<string, unknown>) {
    return this.queries.execute(new GetTransactionByOffsetQuery(claims, decodeGetTransactionByOffsetRequest(body)));
  }

  @PostJson('updates/get-updates-page')
  @RouteSchema({ body: getUpdatesPageRequestSchema })
  updatesPage(@CurrentClaims() claims: Claims, @Body() body: Record<string, unknown>) {
    return this.queries.execute(new GetUpdatesPageQuery(claims, decodeGetUpdatesPageRequest(body)));
  }

  /** Admin: prune the ledger up to `pruneUpTo` (inclusive). Answers the pruning offset in force. */
  @PostJson('admin/prune')
  @RouteSchema({ body: { type: 'object', required: ['pruneUpTo'], properties: { pruneUpTo: int64Schema } } })
  prune(@CurrentClaims() claims: Claims, @Body() body: { pruneUpTo: unknown }) {
    return this.commands.execute(new PruneLedgerCommand(claims, toInt64(body.pruneUpTo)));
  }

  private list(
    claims: Claims,
    body: Record<string, unknown>,
    q: Record<string, unknown>,
    form: TransactionForm = 'flat',
  ) {
    const limit = int64Query('limit', q.limit);
    const idle = int64Query('stream_idle_timeout_ms', q.stream_idle_timeout_ms);
    return this.queries.execute(new ListUpdatesQuery(claims, decodeGetUpdatesRequest(body), limit, idle, form));
  }
}
