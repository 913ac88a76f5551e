import type {
  Claims,
  GetActiveContractsPageRequest,
  GetActiveContractsRequest,
  GetContractRequest,
  GetEventsByContractIdRequest,
} from '@ledgerline/domain';

/** POST /v2/state/active-contracts: the list variant of the active contract set. */
export class ListActiveContractsQuery {
  constructor(
    readonly claims: Claims,
    readonly request: GetActiveContractsRequest,
    readonly limit: number | undefined,
    readonly streamIdleTimeoutMs: number | undefined,
  ) {}
}

/** GET /v2/state/active-contracts-page. */
export class GetActiveContractsPageQuery {
  constructor(
    readonly claims: Claims,
    readonly request: GetActiveContractsPageRequest,
  ) {}
}

/** POST /v2/events/events-by-contract-id. */
export class GetEventsByContractIdQuery {
  constructor(
    readonly claims: Claims,
    readonly request: GetEventsByContractIdRequest,
  ) {}
}

/** POST /v2/contracts/contract-by-id. */
export class GetContractQuery {
  constructor(
    readonly claims: Claims,
    readonly request: GetContractRequest,
  ) {}
}
