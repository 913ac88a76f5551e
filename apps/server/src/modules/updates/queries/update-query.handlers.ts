import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import {
  authorizeUpdateFormat,
  listBytesExceeded,
  compileUpdateFormat,
  NO_INTERFACES,
  renderTransaction,
  resolveTransactionByIdFormat,
  updateNotFound,
  validateUpdateFormat,
  validateUpdateId,
  planUpdatesPage,
  projectUpdate,
  resolveTransactionByOffsetFormat,
  resolveTransactionTreeFormat,
  updateNotFoundAtOffset,
  updateNotFoundByHash,
  updatesPageToken,
  validateLookupFormat,
  validateLookupOffset,
  validateTransactionHash,
  type JsGetUpdatesResponse,
  type StoredUpdate,
  type UpdateFormat,
} from '@ledgerline/domain';
import { LedgerRuntime } from '../../../infrastructure/runtime';
import { StreamLimiter } from '../../../streaming/stream-limiter';
import { StreamAuthorization } from '../../../streaming/stream-authorization';
import { collectList, listTake } from '../../../streaming/list-collector';
import { UpdatesReader } from '../../../streaming/update-stream';
import {
  GetTransactionByIdQuery,
  GetTransactionByOffsetQuery,
  GetTransactionTreeByIdQuery,
  GetTransactionTreeByOffsetQuery,
  GetUpdateByHashQuery,
  GetUpdateByIdQuery,
  GetUpdateByOffsetQuery,
  GetUpdatesPageQuery,
  ListUpdatesQuery,
} from './update.queries';

/**
 * The list variant (Canton's Endpoints, ledger-json-api: json/v2/Endpoints.scala): at most min(limit, max + 1) elements
 * are collected; more than the maximum is a 413. Open-ended requests (and any request with `stream_idle_timeout_ms`)
 * complete once no new element arrived within the idle timeout; bounded requests complete at their end. Open-ended
 * requests hold one of the user's stream slots while they wait (StreamLimiter). The answer holds at most
 * LEDGER_HTTP_LIST_MAX_BYTES of payload: one that would hold more is a 413 pointing to the WebSocket form.
 */
@QueryHandler(ListUpdatesQuery)
export class ListUpdatesHandler implements IQueryHandler<ListUpdatesQuery> {
  constructor(
    private readonly runtime: LedgerRuntime,
    private readonly reader: UpdatesReader,
    private readonly limiter: StreamLimiter,
    private readonly authorization: StreamAuthorization,
  ) {}

  async execute({ claims, request, limit, streamIdleTimeoutMs, form }: ListUpdatesQuery): Promise<JsGetUpdatesResponse[]> {
    const max = this.runtime.config.httpListMaxElements;
    const take = listTake(limit, max);
    const maxBytes = this.runtime.config.httpListMaxBytes;
    const budget = { maxBytes, tooLarge: () => listBytesExceeded(maxBytes, form === 'tree' ? '/v2/updates/trees' : '/v2/updates') };
    const stream = await this.reader.open(claims, request, Math.min(Math.max(take, 50), 1000), form, budget);
    const idleMs = stream.tailing || streamIdleTimeoutMs !== undefined ? (streamIdleTimeoutMs ?? this.runtime.config.streamIdleTimeoutMs) : null;
    return collectList(stream, { take, max, idleMs, limiter: this.limiter, authorization: this.authorization, claims });
  }
}

/**
 * As Canton's JsUpdateService and UpdateServiceRequestValidator: requestingParties/transactionFormat (JSON layer),
 * authorization, update id syntax, the format, then the lookup.
 * Anything that is not a transaction with a visible event is UPDATE_NOT_FOUND.
 */
@QueryHandler(GetTransactionByIdQuery)
export class GetTransactionByIdHandler implements IQueryHandler<GetTransactionByIdQuery> {
  constructor(private readonly reader: UpdatesReader) {}

  async execute({ claims, request }: GetTransactionByIdQuery) {
    const format = resolveTransactionByIdFormat(request);
    authorizeUpdateFormat(claims, format);
    const id = validateUpdateId(request.updateId);
    validateUpdateFormat(format);
    const compiled = await this.reader.compile(format);
    const row = await this.reader.byUpdateId(id);
    const tx = compiled.transactions;
    const rendered = row && row.kind === 'Transaction' && tx ? renderTransaction(row, tx.format, tx.shape) : null;
    if (!rendered) throw updateNotFound(request.updateId ?? '');
    return { transaction: rendered };
  }
}

/**
 * GetUpdateById (UpdateServiceRequestValidator, ApiUpdateService): authorization by the format, the update id, the
 * format; then the update rendered as one element of the update stream. UPDATE_NOT_FOUND when there is none, its kind
 * is not asked for, nothing of it is visible, or the format asks for nothing.
 */
@QueryHandler(GetUpdateByIdQuery)
export class GetUpdateByIdHandler implements IQueryHandler<GetUpdateByIdQuery> {
  constructor(private readonly reader: UpdatesReader) {}

  async execute({ claims, request }: GetUpdateByIdQuery): Promise<JsGetUpdatesResponse> {
    if (request.updateFormat) authorizeUpdateFormat(claims, request.updateFormat);
    const id = validateUpdateId(request.updateId);
    const format = validateLookupFormat(request.updateFormat);
    return lookUpUpdate(this.reader, format, () => this.reader.byUpdateId(id), () => updateNotFound(request.updateId ?? ''));
  }
}

/**
 * The update lookups' common end: load the row only when the format sees something, render it through the stream's
 * renderer, and answer UPDATE_NOT_FOUND when nothing is visible.
 */
async function lookUpUpdate(
  reader: UpdatesReader,
  format: ReturnType<typeof validateLookupFormat>,
  load: () => ReturnType<UpdatesReader['byOffset']>,
  notFound: () => Error,
): Promise<JsGetUpdatesResponse> {
  const row = format ? await load() : null;
  const rendered = row && format ? projectUpdate(row, await reader.compile(format)) : null;
  if (!rendered) throw notFound();
  return rendered;
}

/** GetUpdateByOffset: as by id, with `offset > 0`; an offset beyond the ledger end is UPDATE_NOT_FOUND too. */
@QueryHandler(GetUpdateByOffsetQuery)
export class GetUpdateByOffsetHandler implements IQueryHandler<GetUpdateByOffsetQuery> {
  constructor(private readonly reader: UpdatesReader) {}

  async execute({ claims, request }: GetUpdateByOffsetQuery): Promise<JsGetUpdatesResponse> {
    if (request.updateFormat) authorizeUpdateFormat(claims, request.updateFormat);
    const offset = validateLookupOffset(request.offset);
    const format = validateLookupFormat(request.updateFormat);
    return lookUpUpdate(this.reader, format, () => this.reader.byOffset(offset), () => updateNotFoundAtOffset(offset));
  }
}

/**
 * GetUpdateByHash: as by id, with the transaction hash (UpdateServiceRequestValidator); only a transaction that was
 * executed with external signatures has one.
 */
@QueryHandler(GetUpdateByHashQuery)
export class GetUpdateByHashHandler implements IQueryHandler<GetUpdateByHashQuery> {
  constructor(private readonly reader: UpdatesReader) {}

  async execute({ claims, request }: GetUpdateByHashQuery): Promise<JsGetUpdatesResponse> {
    if (request.updateFormat) authorizeUpdateFormat(claims, request.updateFormat);
    const hash = validateTransactionHash(request.transactionHash);
    const format = validateLookupFormat(request.updateFormat);
    return lookUpUpdate(this.reader, format, () => this.reader.byTransactionHash(hash), () => updateNotFoundByHash(hash));
  }
}

/** transaction-by-offset (deprecated): transaction-by-id's format matrix, then GetUpdateByOffset for transactions. */
@QueryHandler(GetTransactionByOffsetQuery)
export class GetTransactionByOffsetHandler implements IQueryHandler<GetTransactionByOffsetQuery> {
  constructor(private readonly reader: UpdatesReader) {}

  async execute({ claims, request }: GetTransactionByOffsetQuery) {
    const format = resolveTransactionByOffsetFormat(request);
    authorizeUpdateFormat(claims, format);
    const offset = validateLookupOffset(request.offset);
    validateUpdateFormat(format);
    const row = await this.reader.byOffset(offset);
    const tx = (await this.reader.compile(format)).transactions;
    const rendered = row && row.kind === 'Transaction' && tx ? renderTransaction(row, tx.format, tx.shape) : null;
    if (!rendered) throw updateNotFoundAtOffset(offset);
    return { transaction: rendered };
  }
}

/**
 * `{transaction: JsTransactionTree}` of a stored update for a tree lookup's format (template wildcards only), or null
 * (not a visible transaction).
 */
function transactionTreeOf(row: StoredUpdate | null, format: UpdateFormat) {
  const rendered = row && row.kind === 'Transaction' ? projectUpdate(row, compileUpdateFormat(format, NO_INTERFACES, 'tree')) : null;
  return rendered ? { transaction: rendered.update.TransactionTree.value } : null;
}

/**
 * transaction-tree-by-id (deprecated; Canton's JsUpdateService): GetUpdateById with LEDGER_EFFECTS transactions and a
 * wildcard for each listed party. Authorization, the update id, then the format (no party: INVALID_ARGUMENT); a
 * transaction none of the parties witnesses is UPDATE_NOT_FOUND.
 */
@QueryHandler(GetTransactionTreeByIdQuery)
export class GetTransactionTreeByIdHandler implements IQueryHandler<GetTransactionTreeByIdQuery> {
  constructor(private readonly reader: UpdatesReader) {}

  async execute({ claims, updateId, parties }: GetTransactionTreeByIdQuery) {
    const format = resolveTransactionTreeFormat(parties);
    authorizeUpdateFormat(claims, format);
    const id = validateUpdateId(updateId);
    validateUpdateFormat(format);
    const tree = transactionTreeOf(await this.reader.byUpdateId(id), format);
    if (!tree) throw updateNotFound(updateId);
    return tree;
  }
}

/** transaction-tree-by-offset (deprecated): as by id, with GetUpdateByOffset's `offset > 0`. */
@QueryHandler(GetTransactionTreeByOffsetQuery)
export class GetTransactionTreeByOffsetHandler implements IQueryHandler<GetTransactionTreeByOffsetQuery> {
  constructor(private readonly reader: UpdatesReader) {}

  async execute({ claims, offset, parties }: GetTransactionTreeByOffsetQuery) {
    const format = resolveTransactionTreeFormat(parties);
    authorizeUpdateFormat(claims, format);
    validateLookupOffset(offset);
    validateUpdateFormat(format);
    const tree = transactionTreeOf(await this.reader.byOffset(offset), format);
    if (!tree) throw updateNotFoundAtOffset(offset);
    return tree;
  }
}

const offsetOf = (e: JsGetUpdatesResponse): number => (Object.values(e.update)[0].value as { offset: number }).offset;

/**
 * GetUpdatesPage (IndexServiceImpl): `maxPageSize + 1` updates of the page's range are read. A full page answers the
 * first `maxPageSize` with a token for the rest; the last page answers the range's end (ascending) or begin
 * (descending), with a token only when an ascending request named no end (to poll the ledger's tail).
 */
@QueryHandler(GetUpdatesPageQuery)
export class GetUpdatesPageHandler implements IQueryHandler<GetUpdatesPageQuery> {
  constructor(private readonly reader: UpdatesReader) {}

  async execute({ claims, request }: GetUpdatesPageQuery) {
    if (request.updateFormat) authorizeUpdateFormat(claims, request.updateFormat);
    const position = await this.reader.position();
    const plan = planUpdatesPage(request, position, this.reader.participant);
    const range = { beginExclusive: plan.begin, endInclusive: plan.end, descending: plan.descending, empty: plan.begin >= plan.end };
    const stream = this.reader.openRange(await this.reader.compile(plan.format), range, Math.min(plan.pageSize + 1, 1000), position);
    const got: JsGetUpdatesResponse[] = [];
    try {
      while (got.length <= plan.pageSize) {
        const e = await stream.next(null);
        if (e === null || typeof e === 'symbol') break;
        got.push(e);
      }
    } finally {
      stream.close();
    }
    const updates = got.slice(0, plan.pageSize);
    const token = (at: number) => updatesPageToken(request, this.reader.participant, at);
    if (got.length > plan.pageSize) {
      const next = offsetOf(got[plan.pageSize]);
      return plan.descending
        ? { updates, lowestPageOffsetExclusive: next, highestPageOffsetInclusive: plan.end, nextPageToken: token(next) }
        : { updates, lowestPageOffsetExclusive: plan.begin, highestPageOffsetInclusive: next - 1, nextPageToken: token(next - 1) };
    }
    const tail = !plan.descending && (request.endOffsetInclusive ?? null) === null;
    return { updates, lowestPageOffsetExclusive: plan.begin, highestPageOffsetInclusive: plan.end, nextPageToken: tail ? token(plan.end) : null };
  }
}
