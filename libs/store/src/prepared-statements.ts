import { createHash } from 'node:crypto';
import { sql, type PostgresPool, type PostgresPoolClient, type RawBuilder } from 'kysely';
import type { Pool, PoolClient, QueryResult } from 'pg';

/**
 * Named prepared statements. A statement that runs as one is parsed and planned once per connection (Postgres may then use
 * a generic plan): the service's hot statements, whose planning was about half of their database time. Only for
 * statements whose text repeats and whose parameters all have fixed types.
 *
 * Kysely statements opt in with `prepared(…)`, which puts a marker comment first; the pool Kysely uses (`preparingPool`)
 * hands Kysely clients that run marked texts as named statements. Code that holds a pg client runs `namedQuery`.
 */
const PREPARED_MARK = '/* ledgerline:prepared */ ';

/** Marks a Kysely statement to run as a named prepared statement. */
export function prepared<T>(statement: RawBuilder<T>): RawBuilder<T> {
  return sql<T>`${sql.raw(PREPARED_MARK)}${statement}`;
}

/** The text of a statement built as a string, marked to run as a named prepared statement when Kysely runs it. */
export function preparedText(text: string): string {
  return PREPARED_MARK + text;
}

// Statement text → name. The name depends on the text only; pg prepares a name once per connection.
const names = new Map<string, string>();

function nameOf(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = 'll_' + createHash('sha256').update(text).digest('hex').slice(0, 24);
    if (names.size > 1000) names.clear();
    names.set(text, name);
  }
  return name;
}

/** Runs `text` on `client` as a named prepared statement. */
export function namedQuery<R extends object = Record<string, unknown>>(
  client: PoolClient,
  text: string,
  values: unknown[],
): Promise<QueryResult<R>> {
  return client.query<R>({ name: nameOf(text), text, values });
}

/** What Kysely sees of a pg client: its statements, with marked ones run as named prepared statements. */
function preparingClient(client: PoolClient, release: () => void): PostgresPoolClient {
  const query = (text: unknown, values?: unknown[]): unknown => {
    if (typeof text === 'string' && text.startsWith(PREPARED_MARK)) return namedQuery(client, text, values ?? []);
    return client.query(text as string, values);
  };
  return { query: query as PostgresPoolClient['query'], release };
}

const pooledClients = new WeakMap<PoolClient, PostgresPoolClient>();

/** The pool Kysely uses: `pool`'s clients, running marked statements as named prepared statements. */
export function preparingPool(pool: Pool): PostgresPool {
  return {
    async connect() {
      const client = await pool.connect();
      let wrapped = pooledClients.get(client);
      if (!wrapped) pooledClients.set(client, (wrapped = preparingClient(client, () => client.release())));
      return wrapped;
    },
    end: () => pool.end(),
  };
}

/**
 * A pool of one client that stays checked out (its owner releases it): Kysely statements on a connection whose
 * transaction the caller drives itself.
 */
export function singleClientPool(client: PoolClient): PostgresPool {
  const wrapped = preparingClient(client, () => undefined);
  return { connect: async () => wrapped, end: async () => undefined };
}
