import { Body, Controller, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { RouteSchema } from '@nestjs/platform-fastify';
import type { Claims } from '@ledgerline/domain';
import { CurrentClaims } from '@ledgerline/auth';
import {
  decodeGetActiveContractsPageRequest,
  decodeGetActiveContractsRequest,
  decodeGetContractRequest,
  decodeGetEventsByContractIdRequest,
  getActiveContractsPageRequestSchema,
  getActiveContractsRequestSchema,
  getContractRequestSchema,
  getEventsByContractIdRequestSchema,
  int64Query,
} from '@ledgerline/wire';
import { PostJson } from '../../http/routes';
import {
  GetActiveContractsPageQuery,
  GetContractQuery,
  GetEventsByContractIdQuery,
  ListActiveContractsQuery,
} from './queries/contracts.queries';

/**
 * Reading contracts over HTTP: the active contract set (list, and a page: POST here as Canton 3.5.10 serves it; the
 * deprecated GET with a body is active-contracts-page.route.ts), a contract's events, a contract's payload. The WebSocket
 * is registered by ContractsWebSocketRoutes.
 */
@Controller('v2')
export class ContractsController {
  constructor(private readonly queries: QueryBus) {}

  @PostJson('state/active-contracts')
  @RouteSchema({ body: getActiveContractsRequestSchema })
  activeContracts(
    @CurrentClaims() claims: Claims,
    @Body() body: Record<string, unknown>,
    @Query() q: Record<string, unknown>,
  ) {
    const limit = int64Query('limit', q.limit);
    const idle = int64Query('stream_idle_timeout_ms', q.stream_idle_timeout_ms);
    return this.queries.execute(
      new ListActiveContractsQuery(claims, decodeGetActiveContractsRequest(body), limit, idle),
    );
  }

  @PostJson('state/active-contracts-page')
  @RouteSchema({ body: getActiveContractsPageRequestSchema })
  activeContractsPage(@CurrentClaims() claims: Claims, @Body() body: Record<string, unknown>) {
    return this.queries.execute(new GetActiveContractsPageQuery(claims, decodeGetActiveContractsPageRequest(body)));
  }

  @PostJson('events/events-by-contract-id')
  @RouteSchema({ body: getEventsByContractIdRequestSchema })
  eventsByContractId(@CurrentClaims() claims: Claims, @Body() body: Record<string, unknown>) {
    return this.queries.execute(new GetEventsByContractIdQuery(claims, decodeGetEventsByContractIdRequest(body)));
  }

  @PostJson('contracts/contract-by-id')
  @RouteSchema({ body: getContractRequestSchema })
  contractById(@CurrentClaims() claims: Claims, @Body() body: Record<string, unknown>) {
    return this.queries.execute(new GetContractQuery(claims, decodeGetContractRequest(body)));
  }
}
