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
   * Completions in `(after, upTo]` of one user (or, with `userId` null, of every user) with an actAs party among `parties`
   * (null: any), in offset order: the (user_id, completion_offset) index walks one user's, the primary key everyone's.
   */
  async page(
    db: Kysely<DB>,
    q: { userId: string | null; parties: readonly string[] | null; after: number; upTo: number; limit: number },
  ): Promise<StoredCompletion[]> {
    const user = q.userId === null ? sql`` : sql`user_id = ${q.userId} AND `;
    const parties = q.parties === null ? sql`` : sql` AND act_as && ${[...q.parties]}::text[]`;
    const { rows } = await prepared(sql<{ completion_offset: string; completion: Completion }>`
      SELECT completion_offset, completion FROM command_completions
      WHERE ${user}completion_offset > ${q.after}::bigint AND completion_offset <= ${q.upTo}::bigint${parties}
      ORDER BY completion_offset LIMIT ${q.limit}::bigint`).execute(db);
    return rows.map((r) => ({ offset: Number(r.completion_offset), completion: r.completion }));
  }

  /**
   * The completions of a transaction hash (base64 of the multihash, as completions carry it): the accepted one and the
   * latest `maxRejected` rejected ones, newest first, with an actAs party among `parties` (null: any). The hash index of
   * migration 0019 finds them.
   */
  async byTransactionHash(
    db: Kysely<DB>,
    q: { hash: string; parties: readonly string[] | null; maxRejected: number },
  ): Promise<{ accepted: Completion | null; rejected: Completion[] }> {
    const parties = q.parties === null ? sql`` : sql` AND act_as && ${[...q.parties]}::text[]`;
    const { rows } = await prepared(sql<{ accepted: boolean; completion: Completion }>`
      (SELECT true AS accepted, completion FROM command_completions
        WHERE completion->>'transactionHash' = ${q.hash} AND completion->>'updateId' <> ''${parties}
        ORDER BY completion_offset DESC LIMIT 1)
      UNION ALL
      (SELECT false AS accepted, completion FROM command_completions
        WHERE completion->>'transactionHash' = ${q.hash} AND completion->>'updateId' = ''${parties}
        ORDER BY completion_offset DESC LIMIT ${q.maxRejected}::bigint)`).execute(db);
    return {
      accepted: rows.find((r) => r.accepted)?.completion ?? null,
      rejected: rows.filter((r) => !r.accepted).map((r) => r.completion),
    };
  }
}
