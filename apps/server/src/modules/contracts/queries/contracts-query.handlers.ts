import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import {
  authorizeEventFormat,
  canReadAs,
  contractEventsNotFound,
  contractPayloadNotFound,
  listBytesExceeded,
  pageToken,
  permissionDenied,
  readsAsAnyParty,
  renderContractEvents,
  renderContractPayload,
  validateActiveContractsPageRequest,
  validateContractRequest,
  validateEventsByContractIdRequest,
  type JsGetActiveContractsResponse,
  type StoredUpdate,
} from '@ledgerline/domain';
import { LedgerUpdatesRepository } from '@ledgerline/store';
import { LedgerRuntime } from '../../../infrastructure/runtime';
import { collectList, listTake } from '../../../streaming/list-collector';
import { StreamLimiter } from '../../../streaming/stream-limiter';
import { StreamAuthorization } from '../../../streaming/stream-authorization';
import { ActiveContractsReader } from '../active-contracts-stream';
import {
  GetActiveContractsPageQuery,
  GetContractQuery,
  GetEventsByContractIdQuery,
  ListActiveContractsQuery,
} from './contracts.queries';

/**
 * The list variant of the active contract set (JsStateService's `asList`): the stream always completes, so the list
 * waits for its end; an idle timeout applies only when `stream_idle_timeout_ms` is given. The list limits are those of
 * the update list (413 beyond the maximum, `limit` truncates).
 */
@QueryHandler(ListActiveContractsQuery)
export class ListActiveContractsHandler implements IQueryHandler<ListActiveContractsQuery> {
  constructor(
    private readonly runtime: LedgerRuntime,
    private readonly reader: ActiveContractsReader,
    private readonly limiter: StreamLimiter,
    private readonly authorization: StreamAuthorization,
  ) {}

  async execute({
    claims,
    request,
    limit,
    streamIdleTimeoutMs,
  }: ListActiveContractsQuery): Promise<JsGetActiveContractsResponse[]> {
    const max = this.runtime.config.httpListMaxElements;
    const take = listTake(limit, max);
    const snapshot = await this.reader.snapshot(claims, request);
    const maxBytes = this.runtime.config.httpListMaxBytes;
    const stream = this.reader.stream(snapshot, Math.min(Math.max(take, 50), 1000), take > 1000, {
      maxBytes,
      tooLarge: () => listBytesExceeded(maxBytes, '/v2/state/active-contracts'),
    });
    return collectList(stream, {
      take,
      max,
      idleMs: streamIdleTimeoutMs ?? null,
      limiter: this.limiter,
      authorization: this.authorization,
      claims,
    });
  }
}

/**
 * One page of a snapshot (ApiStateService.getActiveContractsPage): `maxPageSize + 1` entries are read; the first
 * `maxPageSize` are answered with empty continuation tokens, and a page token when more exist. Pages of one snapshot
 * chained by their tokens are the streaming list at the same offset, in the same order.
 */
@QueryHandler(GetActiveContractsPageQuery)
export class GetActiveContractsPageHandler implements IQueryHandler<GetActiveContractsPageQuery> {
  constructor(private readonly reader: ActiveContractsReader) {}

  async execute({ claims, request }: GetActiveContractsPageQuery) {
    authorizeEventFormat(claims, request.eventFormat);
    const position = await this.reader.position();
    const checked = validateActiveContractsPageRequest(request, position, this.reader.participant);
    const snapshot = { ...checked, ...(await this.reader.acsFormat(checked.format)) };
    const stream = this.reader.positioned(snapshot, Math.min(checked.pageSize + 1, 1000));
    const got: Array<{ entry: Omit<JsGetActiveContractsResponse, 'streamContinuationToken'>; position: unknown }> = [];
    try {
      while (got.length <= checked.pageSize) {
        const e = await stream.next();
        if (e === null) break;
        got.push(e);
      }
    } finally {
      stream.close();
    }
    const page = got.slice(0, checked.pageSize);
    const more = got.length > checked.pageSize;
    const last = page[page.length - 1] as { position: Parameters<typeof pageToken>[0] } | undefined;
    return {
      activeContracts: page.map((e) => ({ ...e.entry, streamContinuationToken: '' })),
      activeAtOffset: checked.activeAtOffset,
      nextPageToken:
        more && last ? pageToken(last.position, checked.format, this.reader.participant, checked.activeAtOffset) : null,
    };
  }
}

/**
 * Canton's EventQueryService: authorization by the event format, the contract id, the format, then the create and the
 * archive rendered as the ACS_DELTA transaction stream shows them. CONTRACT_EVENTS_NOT_FOUND when the contract is
 * unknown, its creation pruned, or the format does not see it.
 */
@QueryHandler(GetEventsByContractIdQuery)
export class GetEventsByContractIdHandler implements IQueryHandler<GetEventsByContractIdQuery> {
  constructor(
    private readonly updates: LedgerUpdatesRepository,
    private readonly runtime: LedgerRuntime,
    private readonly reader: ActiveContractsReader,
  ) {}

  async execute({ claims, request }: GetEventsByContractIdQuery) {
    authorizeEventFormat(claims, request.eventFormat);
    const checked = validateEventsByContractIdRequest(request);
    const { contractId } = checked;
    const format = await this.reader.eventFormat(checked.format);
    // The contract and its updates from one database: a replica that knows the contract, else the primary.
    const { c, found } = await this.runtime.reads.lookup(
      async (db) => {
        const c = await this.reader.repo.contract(db, contractId);
        if (!c) return { c, found: new Map<number, StoredUpdate>() };
        const offsets = c.archivedOffset === null ? [c.createdOffset] : [c.createdOffset, c.archivedOffset];
        return { c, found: await this.updates.byOffsets(db, offsets) };
      },
      (r) => !r.c,
    );
    if (!c) throw contractEventsNotFound(contractId);
    const rendered = renderContractEvents(
      contractId,
      found.get(c.createdOffset) ?? null,
      c.archivedOffset === null ? null : (found.get(c.archivedOffset) ?? null),
      format,
    );
    if (!rendered) throw contractEventsNotFound(contractId);
    return rendered;
  }
}

/**
 * Canton's ContractService (alpha): ReadAs for every querying party, ReadAsAnyParty when none is given; then the
 * contract's payload as the querying parties see it. CONTRACT_PAYLOAD_NOT_FOUND when unknown or not theirs.
 */
@QueryHandler(GetContractQuery)
export class GetContractHandler implements IQueryHandler<GetContractQuery> {
  constructor(
    private readonly runtime: LedgerRuntime,
    private readonly reader: ActiveContractsReader,
  ) {}

  async execute({ claims, request }: GetContractQuery) {
    const parties = request.queryingParties ?? [];
    if (parties.length === 0 && !readsAsAnyParty(claims))
      throw permissionDenied('Claims do not authorize to read data as any party');
    for (const p of parties)
      if (!canReadAs(claims, p)) throw permissionDenied(`Claims do not authorize to read data for party '${p}'`);
    const { contractId } = validateContractRequest(request);
    const c = await this.runtime.reads.lookup(
      (db) => this.reader.repo.contract(db, contractId),
      (found) => !found,
    );
    const rendered = c ? renderContractPayload(c.createdEvent, parties) : null;
    if (!rendered) throw contractPayloadNotFound(contractId);
    return rendered;
  }
}
