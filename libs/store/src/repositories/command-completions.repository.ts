import { sql, type Kysely } from 'kysely';
import type { Completion } from '@ledgerline/domain';
import type { DB } from '../schema';
import { prepared } from '../prepared-statements';

/** A stored completion: its offset and the Completion (with every actAs party). */
export interface StoredCompletion {
  offset: number;
  completion: Completion;
}

/** Reads of the command_completions projection (migration 0016). */
export class CommandCompletionsRepository {
  /**
   * One user's completions in `(after, upTo]` with an actAs party among `parties`, in offset order (the
   * (user_id, completion_offset) index walks them).
   */
  async page(db: Kysely<DB>, q: { userId: string; parties: readonly string[]; after: number; upTo: number; limit: number }): Promise<StoredCompletion[]> {
    const { rows } = await prepared(sql<{ completion_offset: string; completion: Completion }>`
      SELECT completion_offset, completion FROM command_completions
      WHERE user_id = ${q.userId} AND completion_offset > ${q.after}::bigint AND completion_offset <= ${q.upTo}::bigint
        AND act_as && ${[...q.parties]}::text[]
      ORDER BY completion_offset LIMIT ${q.limit}::bigint`).execute(db);
    return rows.map((r) => ({ offset: Number(r.completion_offset), completion: r.completion }));
  }
}
