import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import {
  authorizeUpdateFormat,
  compileUpdateFormat,
  renderTransaction,
  resolveTransactionByIdFormat,
  updateNotFound,
  validateUpdateFormat,
  validateUpdateId,
  type JsGetUpdatesResponse,
} from '@ledgerline/domain';
import { LedgerRuntime } from '../../../infrastructure/runtime';
import { StreamLimiter } from '../stream-limiter';
import { collectList, listTake } from '../list-collector';
import { UpdatesReader } from '../update-stream';
import { GetTransactionByIdQuery, ListUpdatesQuery } from './update.queries';

/**
 * The list variant (Canton's Endpoints, ledger-json-api: json/v2/Endpoints.scala): at most min(limit, max + 1) elements
 * are collected; more than the maximum is a 413. Open-ended requests (and any request with `stream_idle_timeout_ms`)
 * complete once no new element arrived within the idle timeout; bounded requests complete at their end. Open-ended
 * requests hold one of the user's stream slots while they wait (StreamLimiter).
 */
@QueryHandler(ListUpdatesQuery)
export class ListUpdatesHandler implements IQueryHandler<ListUpdatesQuery> {
  constructor(
    private readonly runtime: LedgerRuntime,
    private readonly reader: UpdatesReader,
    private readonly limiter: StreamLimiter,
  ) {}

  async execute({ claims, request, limit, streamIdleTimeoutMs }: ListUpdatesQuery): Promise<JsGetUpdatesResponse[]> {
    const max = this.runtime.config.httpListMaxElements;
    const take = listTake(limit, max);
    const stream = await this.reader.open(claims, request, Math.min(Math.max(take, 50), 1000));
    const idleMs = stream.tailing || streamIdleTimeoutMs !== undefined ? (streamIdleTimeoutMs ?? this.runtime.config.streamIdleTimeoutMs) : null;
    return collectList(stream, { take, max, idleMs, limiter: this.limiter, claims });
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
    const compiled = compileUpdateFormat(format);
    const row = await this.reader.byUpdateId(id);
    const tx = compiled.transactions;
    const rendered = row && row.kind === 'Transaction' && tx ? renderTransaction(row, tx.format, tx.shape) : null;
    if (!rendered) throw updateNotFound(request.updateId ?? '');
    return { transaction: rendered };
  }
}
