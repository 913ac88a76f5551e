import { sql, type Kysely } from 'kysely';
import type { DB } from '../schema';

/** NOTIFY channel carrying the new static time (µs, decimal) to every instance whenever it moves. */
export const LEDGER_TIME_CHANNEL = 'ledgerline_time';

/** The static ledger time (table `ledger_time`): stored, so it survives restarts, and shared by every instance. */
export class LedgerTimeRepository {
  async get(db: Kysely<DB>): Promise<bigint | null> {
    const row = await db.selectFrom('ledger_time').select('static_micros').executeTakeFirst();
    return row ? BigInt(row.static_micros) : null;
  }

  /** The record time of the ledger's last update (the ledger head's), µs since the epoch; 0 on an empty ledger. */
  async lastRecordTime(db: Kysely<DB>): Promise<bigint> {
    const row = await db.selectFrom('ledger_head').select('record_time_micros').where('id', '=', 1).executeTakeFirst();
    return row ? BigInt(row.record_time_micros) : 0n;
  }

  /** The stored time, or `start()` stored as the first one. Concurrent callers all get the same winner. */
  async getOrInitialize(db: Kysely<DB>, start: () => bigint): Promise<bigint> {
    const existing = await this.get(db);
    if (existing !== null) return existing;
    await db
      .insertInto('ledger_time')
      .values({ static_micros: String(start()) })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    return (await this.get(db))!;
  }

  /**
   * Moves the stored time to `micros` if that is not before it, and tells every instance. Answers the stored time after
   * the attempt: `micros` on success, the (later) current time when refused.
   */
  async moveTo(db: Kysely<DB>, micros: bigint): Promise<{ moved: boolean; current: bigint }> {
    const value = String(micros);
    const moved = await sql<{ static_micros: string }>`
      UPDATE ledger_time SET static_micros = ${value}::int8 WHERE static_micros <= ${value}::int8
      RETURNING static_micros::text AS static_micros, pg_notify(${LEDGER_TIME_CHANNEL}, static_micros::text)`.execute(
      db,
    );
    if (moved.rows.length) return { moved: true, current: micros };
    const current = await this.get(db);
    if (current === null) throw new Error('static ledger time is not initialized');
    return { moved: false, current };
  }
}
