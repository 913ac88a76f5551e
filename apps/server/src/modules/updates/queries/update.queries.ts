import type {
  Claims,
  GetTransactionByIdRequest,
  GetTransactionByOffsetRequest,
  GetUpdateByHashRequest,
  GetUpdateByIdRequest,
  GetUpdateByOffsetRequest,
  GetUpdatesPageRequest,
  GetUpdatesRequest,
  TransactionForm,
} from '@ledgerline/domain';

/**
 * POST /v2/updates/flats and POST /v2/updates: the list ("blocking") variant of the update stream; POST
 * /v2/updates/trees (deprecated) with the tree form.
 */
export class ListUpdatesQuery {
  constructor(
    readonly claims: Claims,
    readonly request: GetUpdatesRequest,
    readonly limit: number | undefined,
    readonly streamIdleTimeoutMs: number | undefined,
    readonly form: TransactionForm = 'flat',
  ) {}
}

/** GET /v2/updates/transaction-tree-by-id/{update-id}?parties=… (deprecated). */
export class GetTransactionTreeByIdQuery {
  constructor(
    readonly claims: Claims,
    readonly updateId: string,
    readonly parties: string[],
  ) {}
}

/** GET /v2/updates/transaction-tree-by-offset/{offset}?parties=… (deprecated). */
export class GetTransactionTreeByOffsetQuery {
  constructor(
    readonly claims: Claims,
    readonly offset: number,
    readonly parties: string[],
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

/** POST /v2/updates/update-by-hash. */
export class GetUpdateByHashQuery {
  constructor(
    readonly claims: Claims,
    readonly request: GetUpdateByHashRequest,
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
