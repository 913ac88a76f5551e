import { Injectable } from '@nestjs/common';
import {
  completionCheckpoint,
  completionFilterOf,
  completionResponse,
  type Claims,
  type CompletionsRequest,
  type CompletionStreamResponse,
} from '@ledgerline/domain';
import { CommandCompletionsRepository, type StoredCompletion } from '@ledgerline/store';
import { LedgerRuntime } from '../../infrastructure/runtime';
import { UpdatesReader, type OffsetStream } from '../../streaming/update-stream';

/**
 * Opens completion streams of both request forms (Canton's ApiCommandCompletionService: CompletionStream and
 * GetCompletions): authorization, then the request checks against the ledger end and pruning offset, then a tailing
 * offset stream over the completions the request sees, served by the stream engine (pages, waiting for commits,
 * OffsetCheckpoints).
 */
@Injectable()
export class CompletionsReader {
  constructor(
    private readonly repo: CommandCompletionsRepository,
    private readonly runtime: LedgerRuntime,
    private readonly updates: UpdatesReader,
  ) {}

  /** Completion stream elements as objects (`render` identity) or JSON texts. */
  async open<T>(
    claims: Claims,
    req: CompletionsRequest,
    pageSize: number,
    as: (e: CompletionStreamResponse) => T,
  ): Promise<OffsetStream<StoredCompletion, T>> {
    const position = await this.updates.repo.position(this.runtime.db);
    const { userId, parties, beginExclusive } = completionFilterOf(claims, req, position);
    const partyList = parties && [...parties];
    return this.updates.stream<StoredCompletion, T>(
      { beginExclusive, endInclusive: null, descending: false, empty: false },
      {
        page: (after, upTo, _descending, limit) =>
          this.runtime.reads.at(upTo, (rdb) => this.repo.page(rdb, { userId, parties: partyList, after, upTo, limit })),
        bytes: () => 0,
      },
      pageSize,
      position,
      {
        readAhead: { pages: 1, bytes: 1 << 20 },
        render: (rows) => rows.map((r) => as(completionResponse(r.completion, parties))),
        checkpoint: (offset, times) => as(completionCheckpoint(offset, times)),
      },
    );
  }
}
