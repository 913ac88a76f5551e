import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { Claims, CompletionsRequest, CompletionStreamResponse } from '@ledgerline/domain';
import { StreamLists } from '../../updates/stream-lists';
import { CompletionsReader } from '../completions.reader';

/**
 * POST /v2/commands/completions and /v2/commands/command-completions: the list form of a completion stream, which always
 * tails (it ends at the idle timeout).
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
    private readonly reader: CompletionsReader,
    private readonly lists: StreamLists,
  ) {}

  async execute({ claims, request, limit, streamIdleTimeoutMs }: ListCompletionsQuery): Promise<CompletionStreamResponse[]> {
    const take = this.lists.take(limit);
    const stream = await this.reader.open(claims, request, this.lists.pageSize(take), (e) => e);
    return this.lists.collect(claims, stream, take, streamIdleTimeoutMs);
  }
}
