import { createHash } from 'node:crypto';
import { Kysely, PostgresDialect, sql, type RawBuilder } from 'kysely';
import { Pool, types, type PoolClient } from 'pg';
import type { DB } from './schema';

// int8 → JS number. Offsets and sequence numbers stay far below 2^53; anything that may not (Daml int64 values) is kept
// inside JSON payloads as strings, never in int8 columns read this way.
types.setTypeParser(20, (v) => Number(v));

/**
 * Statements that start with this comment run as named prepared statements (parsed and planned once per connection;
 * Postgres may then use a generic plan): the writer's hot statements, whose planning was about half of their database
 * time. Only for statements whose text repeats and whose parameters all have fixed types.
 */
const PREPARED_MARK = '/* ledgerline:prepared */ ';

/** Marks `statement` to run as a named prepared statement (see PREPARED_MARK). */
export function prepared<T>(statement: RawBuilder<T>): RawBuilder<T> {
  return sql<T>`${sql.raw(PREPARED_MARK)}${statement}`;
}

/**
 * A prepared statement (PREPARED_MARK) whose text goes on with this comment is followed on its connection by COMMIT, sent
 * right behind it: the connection does not wait for the statement's answer, nor for the caller to ask for the COMMIT.
 * The writer's last statement of a batch saves a turn of the event loop while it holds the ledger lock. If the statement
 * fails, PostgreSQL answers the COMMIT of the aborted transaction with ROLLBACK: nothing is committed. The COMMIT the
 * transaction then asks for (Kysely's) gets the answer of the one already sent; a ROLLBACK gets it too.
 */
const COMMIT_AFTER_MARK = '/* ledgerline:commit-after */ ';

/**
 * The text of a statement built as a string (not with Kysely's sql fragments) marked to run as a named prepared statement,
 * and with `commitAfter` (a transaction's last statement) to be followed at once by COMMIT (see COMMIT_AFTER_MARK).
 */
export function preparedText(text: string, opts: { commitAfter?: boolean } = {}): string {
  return PREPARED_MARK + (opts.commitAfter ? COMMIT_AFTER_MARK : '') + text;
}

function prepareMarkedStatements(client: PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const names = new Map<string, string>();
  // The COMMIT sent behind a marked statement, until the transaction asks for its end.
  let pendingEnd: Promise<unknown> | null = null;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (text: unknown, ...rest: unknown[]) => {
    if (pendingEnd !== null && (text === 'commit' || text === 'rollback')) {
      const end = pendingEnd;
      pendingEnd = null;
      return end;
    }
    if (typeof text !== 'string' || !text.startsWith(PREPARED_MARK)) return query(text, ...rest);
    let name = names.get(text);
    if (!name) {
      name = 'll_' + createHash('sha256').update(text).digest('hex').slice(0, 24);
      if (names.size > 1000) names.clear();
      names.set(text, name);
    }
    const [values, callback] = rest;
    const result = query({ name, text, values }, callback);
    if (text.startsWith(COMMIT_AFTER_MARK, PREPARED_MARK.length)) {
      pendingEnd = query('COMMIT') as Promise<unknown>;
      pendingEnd.catch(() => undefined); // its failure reaches whoever asks for the end (the statement fails too)
    }
    return result;
  };
}

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
    prepareMarkedStatements(client);
  });
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

/**
 * Postgres/driver failures that mean "the database is not there right now" (refused or reset connections, a server
 * shutting down or starting up, a connection lost mid-statement, the pool's connect timeout): the service answers them
 * with 503 TransientServerFailure, never 500 and never 401.
 */
export function isDatabaseUnavailable(e: unknown): boolean {
  const err = e as { code?: string; message?: string };
  const code = err?.code ?? '';
  return (
    // ENOENT: a Unix socket whose server is down (its socket file is gone).
    ['ECONNREFUSED', 'ENOENT', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006', '53300'].includes(code) ||
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly|not queryable/i.test(err?.message ?? '')
  );
}
