import type { Kysely } from 'kysely';
import type { DB } from '../schema';

/** Reads of the ledger's state (GET /v2/state/*): where the ledger ends and up to where it is pruned. */
export class LedgerStateRepository {
  /** Last assigned offset (0 = empty ledger). */
  async ledgerEnd(db: Kysely<DB>): Promise<number> {
    const row = await db.selectFrom('ledger_head').select('ledger_offset').where('id', '=', 1).executeTakeFirstOrThrow();
    return Number(row.ledger_offset);
  }

  /** Updates at or below this offset are pruned (0 = never pruned). */
  async prunedUpTo(db: Kysely<DB>): Promise<number> {
    const row = await db.selectFrom('ledger_pruning').select('pruned_up_to').where('id', '=', 1).executeTakeFirst();
    return Number(row?.pruned_up_to ?? 0);
  }
}
