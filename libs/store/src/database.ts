import { Kysely, PostgresDialect } from 'kysely';
import { Pool, types } from 'pg';
import type { DB } from './schema';
import { preparingPool } from './prepared-statements';
import type { DatabaseHosts } from './replicas/database-hosts';

// int8 → JS number. Offsets and sequence numbers stay far below 2^53; anything that may not (Daml int64 values) is kept
// inside JSON payloads as strings, never in int8 columns read this way.
types.setTypeParser(20, (v) => Number(v));

export interface Database {
  db: Kysely<DB>;
  pool: Pool;
  close(): Promise<void>;
}

// The pool behind each Kysely instance openDatabase made (the batched writer drives its connections itself).
const pools = new WeakMap<Kysely<DB>, Pool>();

/** The pg pool of a Kysely instance made by `openDatabase`. */
export function poolOf(db: Kysely<DB>): Pool {
  const pool = pools.get(db);
  if (!pool) throw new Error('not a database opened with openDatabase: its connection pool is unknown');
  return pool;
}

export interface DatabaseOptions {
  max?: number;
  applicationName?: string;
  /** Fail a connection attempt after this long (ms); requests during an outage then fail fast. */
  connectionTimeoutMillis?: number;
  /** The hosts that may hold the primary: connections go to the first one not in recovery (`url` gives the rest). */
  hosts?: DatabaseHosts;
}

export function openDatabase(url: string, opts: DatabaseOptions = {}): Database {
  const pool = new Pool({
    connectionString: opts.hosts?.url() ?? url,
    ...(opts.hosts ? { Client: opts.hosts.clientClass() } : {}),
    max: opts.max ?? 10,
    application_name: opts.applicationName ?? 'ledgerline',
    connectionTimeoutMillis: opts.connectionTimeoutMillis ?? 2000,
    idleTimeoutMillis: 30_000,
    // No JIT: the service's statements are short OLTP ones, but a batch load's correlated subqueries can be costed above
    // jit_above_cost, and compiling them took ~17 ms per statement (measured) for a query that runs in under 1 ms.
    options: '-c jit=off',
  });
  // An idle client that loses its server (database restart) emits 'error' on the pool; without a listener Node exits.
  pool.on('error', () => undefined);
  // The pool listens only to idle clients. A client that is checked out (an open transaction between two statements, a
  // stream between pages) and loses its server (FATAL 57P01 on a fast shutdown, a reset socket) emits 'error' with no
  // listener, which kills the process. With this listener the error goes to the client's next query instead, and the
  // pool drops the client when it is released (it is no longer queryable).
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: preparingPool(pool) }) });
  pools.set(db, pool);
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

/**
 * Postgres/driver failures that mean "the database is not there right now" (refused or reset connections, a server
 * shutting down or starting up, a connection lost mid-statement, the pool's connect timeout, a write reaching a host that
 * is no longer the primary: 25006): the service answers them
 * with 503 TransientServerFailure, never 500 and never 401.
 */
export function isDatabaseUnavailable(e: unknown): boolean {
  const err = e as { code?: string; message?: string };
  const code = err?.code ?? '';
  return (
    // ENOENT: a Unix socket whose server is down (its socket file is gone).
    [
      'ECONNREFUSED',
      'ENOENT',
      'ECONNRESET',
      'ETIMEDOUT',
      'EPIPE',
      'EHOSTUNREACH',
      'ENETUNREACH',
      '57P01',
      '57P02',
      '57P03',
      '08000',
      '08001',
      '08003',
      '08004',
      '08006',
      '53300',
      '25006',
    ].includes(code) ||
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly|not queryable/i.test(
      err?.message ?? '',
    )
  );
}
