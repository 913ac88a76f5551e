import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import {
  completionByHashParties,
  completionByHashResponse,
  completionLookupHash,
  completionNotFound,
  MAX_REJECTED_COMPLETIONS_BY_HASH,
  type Claims,
  type CompletionByHashResponse,
} from '@ledgerline/domain';
import { CommandCompletionsRepository } from '@ledgerline/store';
import { LedgerRuntime } from '../../../infrastructure/runtime';

/** POST /v2/commands/completion-by-hash (Canton 3.5.10). */
export class GetCompletionByHashQuery {
  constructor(
    readonly claims: Claims,
    readonly transactionHash: Uint8Array,
  ) {}
}

/**
 * Authorization (the caller's readable parties), then validation (a non-empty hash), then one read of the completions
 * projection: the accepted completion and the latest rejected ones the caller's parties see.
 */
@QueryHandler(GetCompletionByHashQuery)
export class GetCompletionByHashHandler implements IQueryHandler<GetCompletionByHashQuery> {
  constructor(
    private readonly repo: CommandCompletionsRepository,
    private readonly runtime: LedgerRuntime,
  ) {}

  async execute({ claims, transactionHash }: GetCompletionByHashQuery): Promise<CompletionByHashResponse> {
    const parties = completionByHashParties(claims);
    const hash = completionLookupHash(transactionHash);
    if (hash === null) throw completionNotFound(transactionHash);
    const found = await this.repo.byTransactionHash(this.runtime.db, {
      hash,
      parties: parties && [...parties],
      maxRejected: MAX_REJECTED_COMPLETIONS_BY_HASH,
    });
    return completionByHashResponse(transactionHash, found, parties);
  }
}
