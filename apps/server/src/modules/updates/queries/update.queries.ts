import type { Claims, GetTransactionByIdRequest, GetUpdatesRequest } from '@ledgerline/domain';

/** POST /v2/updates/flats and POST /v2/updates: the list ("blocking") variant of the update stream. */
export class ListUpdatesQuery {
  constructor(
    readonly claims: Claims,
    readonly request: GetUpdatesRequest,
    readonly limit: number | undefined,
    readonly streamIdleTimeoutMs: number | undefined,
  ) {}
}

/** POST /v2/updates/transaction-by-id. */
export class GetTransactionByIdQuery {
  constructor(
    readonly claims: Claims,
    readonly request: GetTransactionByIdRequest,
  ) {}
}
