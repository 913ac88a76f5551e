import type { Kysely } from 'kysely';
import type { Pool } from 'pg';
import type { DB } from '../schema';

/** Advisory-lock key: one bootstrap application at a time (workers, ledgerctl) on a database. */
const BOOTSTRAP_LOCK = 72_517_021;

/** What the declarative bootstrap has already created (table `bootstrap_contracts`), and its lock. */
export class BootstrapRepository {
  /** Runs `fn` while holding the bootstrap lock (a session advisory lock on a connection of its own). */
  async withLock<T>(pool: Pool, fn: () => Promise<T>): Promise<T> {
    const client = await pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock($1)', [BOOTSTRAP_LOCK]);
      try {
        return await fn();
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [BOOTSTRAP_LOCK]).catch(() => undefined);
      }
    } finally {
      client.release();
    }
  }

  async appliedContractKeys(db: Kysely<DB>): Promise<Set<string>> {
    const rows = await db.selectFrom('bootstrap_contracts').select('entry_key').execute();
    return new Set(rows.map((r) => r.entry_key));
  }

  async recordContract(db: Kysely<DB>, key: string, updateId: string): Promise<void> {
    await db
      .insertInto('bootstrap_contracts')
      .values({ entry_key: key, update_id: updateId })
      .onConflict((oc) => oc.column('entry_key').doNothing())
      .execute();
  }
}
