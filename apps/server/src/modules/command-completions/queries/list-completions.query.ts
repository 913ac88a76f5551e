import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import {
  listBytesExceeded,
  type Claims,
  type CompletionsRequest,
  type CompletionStreamResponse,
} from '@ledgerline/domain';
import { LedgerRuntime } from '../../../infrastructure/runtime';
import { collectList, listTake } from '../../../streaming/list-collector';
import { StreamLimiter } from '../../../streaming/stream-limiter';
import { StreamAuthorization } from '../../../streaming/stream-authorization';
import { CompletionsReader } from '../completions.reader';

/**
 * POST /v2/commands/completions and /v2/commands/command-completions: the list form of a completion stream (the update
 * lists' collector), which always tails, so it ends at the idle timeout.
 */
export class ListCompletionsQuery {
  constructor(
    readonly claims: Claims,
    readonly request: CompletionsRequest,
    readonly limit: number | undefined,
    readonly streamIdleTimeoutMs: number | undefined,
  ) {}
}

@QueryHandler(ListCompletionsQuery)
export class ListCompletionsHandler implements IQueryHandler<ListCompletionsQuery> {
  constructor(
    private readonly runtime: LedgerRuntime,
    private readonly reader: CompletionsReader,
    private readonly limiter: StreamLimiter,
    private readonly authorization: StreamAuthorization,
  ) {}

  async execute({
    claims,
    request,
    limit,
    streamIdleTimeoutMs,
  }: ListCompletionsQuery): Promise<CompletionStreamResponse[]> {
    const { httpListMaxElements: max, streamIdleTimeoutMs: defaultIdleMs } = this.runtime.config;
    const take = listTake(limit, max);
    const stream = await this.reader.open(claims, request, Math.min(Math.max(take, 50), 1000), (e) => e);
    const maxBytes = this.runtime.config.httpListMaxBytes;
    const budget = {
      maxBytes,
      size: (e: CompletionStreamResponse) => Buffer.byteLength(JSON.stringify(e)),
      tooLarge: () => listBytesExceeded(maxBytes, '/v2/commands/completions'),
    };
    return collectList(stream, {
      take,
      max,
      idleMs: streamIdleTimeoutMs ?? defaultIdleMs,
      limiter: this.limiter,
      authorization: this.authorization,
      claims,
      budget,
    });
  }
}
