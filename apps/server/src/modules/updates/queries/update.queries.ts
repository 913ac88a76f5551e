import type {
  Claims,
  GetTransactionByIdRequest,
  GetTransactionByOffsetRequest,
  GetUpdateByIdRequest,
  GetUpdateByOffsetRequest,
  GetUpdatesPageRequest,
  GetUpdatesRequest,
} from '@ledgerline/domain';

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

/** POST /v2/updates/update-by-id. */
export class GetUpdateByIdQuery {
  constructor(
    readonly claims: Claims,
    readonly request: GetUpdateByIdRequest,
  ) {}
}

/** POST /v2/updates/update-by-offset. */
export class GetUpdateByOffsetQuery {
  constructor(
    readonly claims: Claims,
    readonly request: GetUpdateByOffsetRequest,
  ) {}
}

/** POST /v2/updates/transaction-by-offset (deprecated). */
export class GetTransactionByOffsetQuery {
  constructor(
    readonly claims: Claims,
    readonly request: GetTransactionByOffsetRequest,
  ) {}
}

/** POST /v2/updates/get-updates-page. */
export class GetUpdatesPageQuery {
  constructor(
    readonly claims: Claims,
    readonly request: GetUpdatesPageRequest,
  ) {}
}
