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
  type Claims,
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

  async execute({
    claims,
    request,
    limit,
    streamIdleTimeoutMs,
    form,
  }: ListUpdatesQuery): Promise<JsGetUpdatesResponse[]> {
    const max = this.runtime.config.httpListMaxElements;
    const take = listTake(limit, max);
    const maxBytes = this.runtime.config.httpListMaxBytes;
    const budget = {
      maxBytes,
      tooLarge: () => listBytesExceeded(maxBytes, form === 'tree' ? '/v2/updates/trees' : '/v2/updates'),
    };
    const stream = await this.reader.open(claims, request, Math.min(Math.max(take, 50), 1000), form, budget);
    const idleMs =
      stream.tailing || streamIdleTimeoutMs !== undefined
        ? (streamIdleTimeoutMs ?? this.runtime.config.streamIdleTimeoutMs)
        : null;
    return collectList(stream, { take, max, idleMs, limiter: this.limiter, authorization: this.authorization, claims });
  }
}

/**
 * The point lookups (Canton's JsUpdateService, UpdateServiceRequestValidator, ApiUpdateService) share one shape:
 * authorization by the format, the key's syntax, the format; then the row read and rendered in the lookup's answer form.
 * UPDATE_NOT_FOUND, naming the key, when there is no row or nothing of it is visible in that form.
 */
async function lookUp<R>(
  claims: Claims,
  format: UpdateFormat | null | undefined,
  key: () => LookupKey,
  answer: () => LookupAnswer<R> | null,
): Promise<R> {
  if (format) authorizeUpdateFormat(claims, format);
  const checkedKey = key();
  const render = answer();
  // A format that asks for nothing sees nothing: no read.
  const row = render ? await checkedKey.load() : null;
  const rendered = row && render ? await render(row) : null;
  if (!rendered) throw checkedKey.notFound();
  return rendered;
}

/** A lookup's key, checked: how to read its row, and its UPDATE_NOT_FOUND. */
interface LookupKey {
  load(): Promise<StoredUpdate | null>;
  notFound(): Error;
}

/** A row in a lookup's answer form, or null when nothing of it is visible there. */
type LookupAnswer<R> = (row: StoredUpdate) => R | null | Promise<R | null>;

function byUpdateId(reader: UpdatesReader, updateId: string | undefined): LookupKey {
  const id = validateUpdateId(updateId);
  return { load: () => reader.byUpdateId(id), notFound: () => updateNotFound(updateId ?? '') };
}

/** `offset > 0`; an offset beyond the ledger end finds nothing. */
function byOffset(reader: UpdatesReader, offset: number | undefined): LookupKey {
  const checked = validateLookupOffset(offset);
  return { load: () => reader.byOffset(checked), notFound: () => updateNotFoundAtOffset(checked) };
}

/** Only a transaction that was executed with external signatures has a hash. */
function byTransactionHash(reader: UpdatesReader, transactionHash: Uint8Array | undefined): LookupKey {
  const hash = validateTransactionHash(transactionHash);
  return { load: () => reader.byTransactionHash(hash), notFound: () => updateNotFoundByHash(hash) };
}

/** GetUpdateBy…: one element of the update stream; its kind must be asked for, and a format that asks for nothing finds nothing. */
const asUpdate =
  (reader: UpdatesReader, updateFormat: UpdateFormat | null | undefined) =>
  (): LookupAnswer<JsGetUpdatesResponse> | null => {
    const format = validateLookupFormat(updateFormat);
    return format && (async (row) => projectUpdate(row, await reader.compile(format)));
  };

/** transaction-by-… (deprecated): `{transaction}` of a transaction with a visible event. */
const asTransaction = (reader: UpdatesReader, format: UpdateFormat) => () => {
  validateUpdateFormat(format);
  return async (row: StoredUpdate) => {
    const tx = (await reader.compile(format)).transactions;
    const rendered = row.kind === 'Transaction' && tx ? renderTransaction(row, tx.format, tx.shape) : null;
    return rendered && { transaction: rendered };
  };
};

/** transaction-tree-by-… (deprecated): `{transaction: JsTransactionTree}` for a tree format (template wildcards only). */
const asTree = (format: UpdateFormat) => () => {
  validateUpdateFormat(format);
  return (row: StoredUpdate) => {
    const rendered =
      row.kind === 'Transaction' ? projectUpdate(row, compileUpdateFormat(format, NO_INTERFACES, 'tree')) : null;
    return rendered && { transaction: rendered.update.TransactionTree.value };
  };
};

/** POST /v2/updates/update-by-id. */
@QueryHandler(GetUpdateByIdQuery)
export class GetUpdateByIdHandler implements IQueryHandler<GetUpdateByIdQuery> {
  constructor(private readonly reader: UpdatesReader) {}

  async execute({ claims, request }: GetUpdateByIdQuery): Promise<JsGetUpdatesResponse> {
    return lookUp(
      claims,
      request.updateFormat,
      () => byUpdateId(this.reader, request.updateId),
      asUpdate(this.reader, request.updateFormat),
    );
  }
}

/** POST /v2/updates/update-by-offset. */
@QueryHandler(GetUpdateByOffsetQuery)
export class GetUpdateByOffsetHandler implements IQueryHandler<GetUpdateByOffsetQuery> {
  constructor(private readonly reader: UpdatesReader) {}

  async execute({ claims, request }: GetUpdateByOffsetQuery): Promise<JsGetUpdatesResponse> {
    return lookUp(
      claims,
      request.updateFormat,
      () => byOffset(this.reader, request.offset),
      asUpdate(this.reader, request.updateFormat),
    );
  }
}

/** POST /v2/updates/update-by-hash. */
@QueryHandler(GetUpdateByHashQuery)
export class GetUpdateByHashHandler implements IQueryHandler<GetUpdateByHashQuery> {
  constructor(private readonly reader: UpdatesReader) {}

  async execute({ claims, request }: GetUpdateByHashQuery): Promise<JsGetUpdatesResponse> {
    return lookUp(
      claims,
      request.updateFormat,
      () => byTransactionHash(this.reader, request.transactionHash),
      asUpdate(this.reader, request.updateFormat),
    );
  }
}

/** POST /v2/updates/transaction-by-id: the format from requestingParties or transactionFormat (not both), first. */
@QueryHandler(GetTransactionByIdQuery)
export class GetTransactionByIdHandler implements IQueryHandler<GetTransactionByIdQuery> {
  constructor(private readonly reader: UpdatesReader) {}

  async execute({ claims, request }: GetTransactionByIdQuery) {
    const format = resolveTransactionByIdFormat(request);
    return lookUp(claims, format, () => byUpdateId(this.reader, request.updateId), asTransaction(this.reader, format));
  }
}

/** POST /v2/updates/transaction-by-offset (deprecated): transaction-by-id's format matrix. */
@QueryHandler(GetTransactionByOffsetQuery)
export class GetTransactionByOffsetHandler implements IQueryHandler<GetTransactionByOffsetQuery> {
  constructor(private readonly reader: UpdatesReader) {}

  async execute({ claims, request }: GetTransactionByOffsetQuery) {
    const format = resolveTransactionByOffsetFormat(request);
    return lookUp(claims, format, () => byOffset(this.reader, request.offset), asTransaction(this.reader, format));
  }
}

/**
 * GET /v2/updates/transaction-tree-by-id (deprecated): LEDGER_EFFECTS transactions and a wildcard for each listed party
 * (no party: INVALID_ARGUMENT, after the update id); a transaction none of them witnesses is UPDATE_NOT_FOUND.
 */
@QueryHandler(GetTransactionTreeByIdQuery)
export class GetTransactionTreeByIdHandler implements IQueryHandler<GetTransactionTreeByIdQuery> {
  constructor(private readonly reader: UpdatesReader) {}

  async execute({ claims, updateId, parties }: GetTransactionTreeByIdQuery) {
    const format = resolveTransactionTreeFormat(parties);
    return lookUp(claims, format, () => byUpdateId(this.reader, updateId), asTree(format));
  }
}

/** GET /v2/updates/transaction-tree-by-offset (deprecated): as by id. */
@QueryHandler(GetTransactionTreeByOffsetQuery)
export class GetTransactionTreeByOffsetHandler implements IQueryHandler<GetTransactionTreeByOffsetQuery> {
  constructor(private readonly reader: UpdatesReader) {}

  async execute({ claims, offset, parties }: GetTransactionTreeByOffsetQuery) {
    const format = resolveTransactionTreeFormat(parties);
    return lookUp(claims, format, () => byOffset(this.reader, offset), asTree(format));
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
    const range = {
      beginExclusive: plan.begin,
      endInclusive: plan.end,
      descending: plan.descending,
      empty: plan.begin >= plan.end,
    };
    const stream = this.reader.openRange(
      await this.reader.compile(plan.format),
      range,
      Math.min(plan.pageSize + 1, 1000),
      position,
    );
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
        : {
            updates,
            lowestPageOffsetExclusive: plan.begin,
            highestPageOffsetInclusive: next - 1,
            nextPageToken: token(next - 1),
          };
    }
    const tail = !plan.descending && (request.endOffsetInclusive ?? null) === null;
    return {
      updates,
      lowestPageOffsetExclusive: plan.begin,
      highestPageOffsetInclusive: plan.end,
      nextPageToken: tail ? token(plan.end) : null,
    };
  }
}
