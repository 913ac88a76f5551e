import { Injectable, OnModuleInit } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { decodeGetTransactionByIdRequest, getTransactionByIdRequestSchema } from '@ledgerline/wire';
import { DirectRoutes } from '../../http/direct-route';
import { GetTransactionByIdQuery } from './queries/update.queries';

/**
 * POST /v2/updates/transaction-by-id: the busiest read endpoint, mounted as a direct route (no Nest router per request,
 * same auth, validation and errors; see DirectRoutes). It dispatches GetTransactionByIdQuery as a controller would.
 */
@Injectable()
export class TransactionByIdRoute implements OnModuleInit {
  constructor(
    private readonly routes: DirectRoutes,
    private readonly queries: QueryBus,
  ) {}

  onModuleInit(): void {
    this.routes.mount({
      url: '/v2/updates/transaction-by-id',
      body: getTransactionByIdRequestSchema,
      handle: (claims, body) =>
        this.queries.execute(new GetTransactionByIdQuery(claims, decodeGetTransactionByIdRequest(body))),
    });
  }
}
