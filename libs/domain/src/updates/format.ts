import { invalidArgument, invalidField, missingField } from '../errors';

/**
 * The request model of the update stream (Canton's JsUpdateService, ledger-json-api: json/v2/, and
 * UpdateServiceRequestValidator, ledger-api-core: ledger/api/validation/), as the JSON body carries it. The wire layer
 * checks JSON types only; every rule below is the ledger's.
 */

export type TransactionShape =
  'TRANSACTION_SHAPE_UNSPECIFIED' | 'TRANSACTION_SHAPE_ACS_DELTA' | 'TRANSACTION_SHAPE_LEDGER_EFFECTS' | 'UNRECOGNIZED';

export type IdentifierFilter =
  | { WildcardFilter: { value?: { includeCreatedEventBlob?: boolean } } }
  | { TemplateFilter: { value: { templateId: string; includeCreatedEventBlob?: boolean } } }
  | {
      InterfaceFilter: {
        value: { interfaceId: string; includeInterfaceView?: boolean; includeCreatedEventBlob?: boolean };
      };
    }
  | { Empty: Record<string, unknown> };

export interface Filters {
  cumulative?: Array<{ identifierFilter?: IdentifierFilter | null }> | null;
}

export interface EventFormat {
  filtersByParty?: Record<string, Filters> | null;
  filtersForAnyParty?: Filters | null;
  verbose?: boolean;
}

export interface TransactionFormat {
  eventFormat?: EventFormat | null;
  transactionShape: TransactionShape;
}

export interface TopologyFormat {
  includeParticipantAuthorizationEvents?: { parties?: string[] | null } | null;
}

export interface UpdateFormat {
  includeTransactions?: TransactionFormat | null;
  includeReassignments?: EventFormat | null;
  includeTopologyEvents?: TopologyFormat | null;
}

/** The legacy TransactionFilter (deprecated `filter`). */
export interface LegacyFilter {
  filtersByParty?: Record<string, Filters> | null;
  filtersForAnyParty?: Filters | null;
}

export interface GetUpdatesRequest {
  beginExclusive?: number;
  endInclusive?: number | null;
  filter?: LegacyFilter | null;
  verbose?: boolean;
  updateFormat?: UpdateFormat | null;
  descendingOrder?: boolean;
}

export interface GetTransactionByIdRequest {
  updateId?: string;
  requestingParties?: string[] | null;
  transactionFormat?: TransactionFormat | null;
}

const USE_EITHER = 'Please use either backwards compatible arguments (filter and verbose) or update_format';

/**
 * The legacy `filter`/`verbose` versus `updateFormat` matrix (Canton's JsUpdateService). With only the legacy fields,
 * transactions (ACS_DELTA) and reassignments use the filter; topology events follow the published API description of
 * `updateFormat`, which says the defaults include participant authorization events for every party named in the filter
 * (all parties when `filtersForAnyParty` is set). The reference code leaves topology events out here; the published
 * description wins (docs/api-coverage.md, Deliberate deviations).
 */
export function resolveUpdateFormat(req: GetUpdatesRequest): UpdateFormat {
  const { format, filter } = formatOrFilter(req);
  if (format) return format;
  const eventFormat: EventFormat = {
    filtersByParty: filter.filtersByParty ?? {},
    filtersForAnyParty: filter.filtersForAnyParty ?? null,
    verbose: req.verbose ?? false,
  };
  const namedParties = Object.keys(filter.filtersByParty ?? {});
  const resolved: UpdateFormat = {
    includeTransactions: { eventFormat, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' },
    includeReassignments: eventFormat,
  };
  // An empty party list means all parties. A filter that names no party (and has no filtersForAnyParty) gets no topology
  // events: the request is authorized against the parties it names (none, so any user may send it) and then fails
  // the format check (filtersByParty and filtersForAnyParty empty), rather than asking for every party's events.
  if (filter.filtersForAnyParty)
    resolved.includeTopologyEvents = { includeParticipantAuthorizationEvents: { parties: [] } };
  else if (namedParties.length > 0)
    resolved.includeTopologyEvents = { includeParticipantAuthorizationEvents: { parties: namedParties } };
  return resolved;
}

/** The legacy `filter`/`verbose` versus `updateFormat` checks: exactly one of them, and no `verbose` with a format. */
function formatOrFilter(
  req: GetUpdatesRequest,
): { format: UpdateFormat; filter: null } | { format: null; filter: LegacyFilter } {
  const format = req.updateFormat ?? null;
  const filter = req.filter ?? null;
  if (format && filter) throw invalidArgument(`Both update_format and filter are set. ${USE_EITHER}, but not both.`);
  if (format && req.verbose)
    throw invalidArgument(`Both update_format and verbose are set. ${USE_EITHER}, but not both.`);
  if (format) return { format, filter: null };
  if (!filter) throw invalidArgument(`Either filter/verbose or update_format is required. ${USE_EITHER}.`);
  return { format: null, filter };
}

const WILDCARD = { identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: false } } } };

/** A party's filters as the tree forms read them: with a wildcard added when they have none. */
function withWildcard(filters: Filters | null | undefined): Filters {
  const cumulative = filters?.cumulative ?? [];
  return cumulative.some((c) => c.identifierFilter && 'WildcardFilter' in c.identifierFilter)
    ? { cumulative }
    : { cumulative: [...cumulative, WILDCARD] };
}

/**
 * The deprecated tree stream (`/v2/updates/trees`, Canton's JsUpdateService with `forTrees`): the same matrix, but the
 * legacy filter reads LEDGER_EFFECTS transactions, and every party's filters (and `filtersForAnyParty`) get a
 * wildcard when they have none. A topology transaction has no tree form: a format that asks for topology events is
 * refused.
 */
export function resolveUpdateTreesFormat(req: GetUpdatesRequest): UpdateFormat {
  const { format, filter } = formatOrFilter(req);
  if (format) {
    if (format.includeTopologyEvents?.includeParticipantAuthorizationEvents) {
      throw invalidArgument(
        'Topology transactions have no transaction tree form: the update format of a trees request must not include topology events',
      );
    }
    return format;
  }
  const filtersByParty: Record<string, Filters> = {};
  for (const [party, f] of Object.entries(filter.filtersByParty ?? {})) filtersByParty[party] = withWildcard(f);
  const eventFormat: EventFormat = {
    filtersByParty,
    filtersForAnyParty: filter.filtersForAnyParty ? withWildcard(filter.filtersForAnyParty) : null,
    verbose: req.verbose ?? false,
  };
  return {
    includeTransactions: { eventFormat, transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS' },
    includeReassignments: eventFormat,
  };
}

/**
 * transaction-tree-by-id / -by-offset (deprecated): LEDGER_EFFECTS transactions with a wildcard for each listed party,
 * verbose. No party leaves the format empty, which its validation refuses.
 */
export function resolveTransactionTreeFormat(parties: readonly string[]): UpdateFormat {
  const filtersByParty: Record<string, Filters> = {};
  for (const p of parties) filtersByParty[p] = { cumulative: [WILDCARD] };
  return {
    includeTransactions: {
      eventFormat: { filtersByParty, filtersForAnyParty: null, verbose: true },
      transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
    },
  };
}

const REQUESTING = 'Please use either backwards compatible arguments (requesting_parties) or transaction_format';

/**
 * transaction-by-id: `requestingParties` versus `transactionFormat` (Canton's JsUpdateService). Only transactions are
 * looked up.
 */
export function resolveTransactionByIdFormat(req: GetTransactionByIdRequest): UpdateFormat {
  const parties = req.requestingParties ?? [];
  const format = req.transactionFormat ?? null;
  if (parties.length > 0 && format) {
    throw invalidArgument(`Both transaction_format and requesting_parties are set. ${REQUESTING} but not both.`);
  }
  if (format) return { includeTransactions: format };
  if (parties.length === 0)
    throw invalidArgument(`Either transaction_format or requesting_parties is required. ${REQUESTING}.`);
  const filtersByParty: Record<string, Filters> = {};
  for (const p of parties) filtersByParty[p] = { cumulative: [WILDCARD] };
  return {
    includeTransactions: {
      eventFormat: { filtersByParty, filtersForAnyParty: null, verbose: true },
      transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
    },
  };
}

/** Party ids: 1–255 characters from `[a-zA-Z0-9:-_ ]` (Canton's PartyIdString). Unknown parties are fine. */
const PARTY = /^[a-zA-Z0-9:\-_ ]{1,255}$/;

export function requireReadParty(party: string, field: string): void {
  if (!PARTY.test(party)) {
    throw invalidField(field, `Invalid party '${party}': expected 1 to 255 characters of [a-zA-Z0-9:-_ ]`);
  }
}

/**
 * `#package-name:Module:Entity` → `package-name:Module:Entity` (the key events are matched by). A package-id reference is
 * rejected as the reference does. (The three-part shape itself is checked while decoding the body.)
 */
export function packageNameKey(identifier: string): string {
  const [pkg, mod, entity] = identifier.split(':');
  if (!pkg.startsWith('#')) {
    throw invalidField('packageId', `Received an identifier with package ID ${pkg}, but expected a package name.`);
  }
  return `${pkg.slice(1)}:${mod}:${entity}`;
}

const filtersHaveInterfaces = (filters: Filters | null | undefined): boolean =>
  (filters?.cumulative ?? []).some((c) => !!c.identifierFilter && 'InterfaceFilter' in c.identifierFilter);

const eventFormatHasInterfaces = (ef: EventFormat | null | undefined): boolean =>
  !!ef &&
  (filtersHaveInterfaces(ef.filtersForAnyParty) || Object.values(ef.filtersByParty ?? {}).some(filtersHaveInterfaces));

/** Whether a format has an interface filter anywhere (its reads then need the directory of implemented interfaces). */
export function hasInterfaceFilters(format: EventFormat | UpdateFormat | null | undefined): boolean {
  if (!format) return false;
  const uf = format as UpdateFormat;
  return (
    eventFormatHasInterfaces(format as EventFormat) ||
    eventFormatHasInterfaces(uf.includeTransactions?.eventFormat) ||
    eventFormatHasInterfaces(uf.includeReassignments)
  );
}

function validateFilters(filters: Filters | null | undefined): void {
  for (const c of filters?.cumulative ?? []) {
    const f = c.identifierFilter;
    if (!f) continue;
    if ('TemplateFilter' in f) packageNameKey(f.TemplateFilter.value.templateId);
    if ('InterfaceFilter' in f) packageNameKey(f.InterfaceFilter.value.interfaceId);
  }
}

export function validateEventFormat(ef: EventFormat): void {
  const byParty = ef.filtersByParty ?? {};
  if (Object.keys(byParty).length === 0 && !ef.filtersForAnyParty) {
    throw invalidArgument('filtersByParty and filtersForAnyParty cannot be empty simultaneously');
  }
  for (const [party, filters] of Object.entries(byParty)) {
    requireReadParty(party, 'filters_by_party');
    validateFilters(filters);
  }
  validateFilters(ef.filtersForAnyParty);
}

/**
 * Canton's FormatValidator (ledger-api-core: ledger/api/validation/): shape, event formats, template ids, topology
 * parties.
 */
export function validateUpdateFormat(uf: UpdateFormat | null | undefined): void {
  if (!uf) throw missingField('update_format');
  if (
    !uf.includeTransactions &&
    !uf.includeReassignments &&
    !uf.includeTopologyEvents?.includeParticipantAuthorizationEvents
  ) {
    throw invalidArgument(
      'The update format must include at least one of transactions, reassignments or topology events',
    );
  }
  const tx = uf.includeTransactions;
  if (tx) {
    if (tx.transactionShape === 'TRANSACTION_SHAPE_UNSPECIFIED' || tx.transactionShape === 'UNRECOGNIZED')
      throw missingField('transaction_shape');
    if (!tx.eventFormat) throw missingField('event_format');
    validateEventFormat(tx.eventFormat);
  }
  if (uf.includeReassignments) validateEventFormat(uf.includeReassignments);
  for (const p of uf.includeTopologyEvents?.includeParticipantAuthorizationEvents?.parties ?? [])
    requireReadParty(p, 'parties');
}
