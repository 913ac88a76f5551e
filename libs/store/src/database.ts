import { Kysely, PostgresDialect } from 'kysely';
import { Pool, types } from 'pg';
import type { DB } from './schema';

// int8 → JS number. Offsets and sequence numbers stay far below 2^53; anything that may not (Daml int64 values) is kept
// inside JSON payloads as strings, never in int8 columns read this way.
types.setTypeParser(20, (v) => Number(v));

export interface Database {
  db: Kysely<DB>;
  pool: Pool;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  max?: number;
  applicationName?: string;
  /** Fail a connection attempt after this long (ms); requests during an outage then fail fast. */
  connectionTimeoutMillis?: number;
}

export function openDatabase(url: string, opts: DatabaseOptions = {}): Database {
  const pool = new Pool({
    connectionString: url,
    max: opts.max ?? 10,
    application_name: opts.applicationName ?? 'ledgerline',
    connectionTimeoutMillis: opts.connectionTimeoutMillis ?? 2000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client that loses its server (database restart) emits 'error' on the pool; without a listener Node exits.
  pool.on('error', () => undefined);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    pool,
    async close() {
      await db.destroy();
      // Kysely only ends a pool it has used itself; the migrator may have used it directly.
      if (!pool.ended) await pool.end();
    },
  };
}
