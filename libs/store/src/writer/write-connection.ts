import { Kysely, PostgresDialect, PostgresDriver, type Driver, type PostgresPool } from 'kysely';
import type { Pool, PoolClient, QueryResult } from 'pg';
import type { DB } from '../schema';
import { namedQuery, singleClientPool } from '../prepared-statements';

const notInAWork = () =>
  new Error("A work runs inside the writer's transaction: it cannot begin, commit or roll back one");

/**
 * The driver of the Kysely instance works see: the writer drives the transaction itself, so `transaction()` and
 * `startTransaction()` fail rather than send BEGIN, COMMIT or ROLLBACK on the writer's connection mid-batch.
 */
class WorkDriver extends PostgresDriver {
  override async beginTransaction(): Promise<void> {
    throw notInAWork();
  }

  override async commitTransaction(): Promise<void> {
    throw notInAWork();
  }

  override async rollbackTransaction(): Promise<void> {
    throw notInAWork();
  }
}

class WorkDialect extends PostgresDialect {
  constructor(private readonly pool: PostgresPool) {
    super({ pool });
  }

  override createDriver(): Driver {
    return new WorkDriver({ pool: this.pool });
  }
}

// One Kysely instance per pooled connection, made the first time the writer uses that connection.
const bound = new WeakMap<PoolClient, Kysely<DB>>();

/**
 * The batched writer's transaction, on a pooled connection the writer drives itself rather than through Kysely's
 * `transaction()`. BEGIN goes out with the first statement (the head lock) queued right behind it, so taking the
 * lock costs one wait for answers rather than two. The writer's own statements run as named prepared statements; works
 * reach the connection through `db`, a Kysely instance bound to it that cannot begin or end a transaction (WorkDriver).
 */
export class WriteConnection {
  /** Whether the transaction has ended (committed or rolled back by PostgreSQL). */
  private ended = false;

  private constructor(
    private readonly client: PoolClient,
    readonly db: Kysely<DB>,
  ) {}

  /** Checks out a connection of `pool`. */
  static async open(pool: Pool): Promise<WriteConnection> {
    const client = await pool.connect();
    let db = bound.get(client);
    if (!db) bound.set(client, (db = new Kysely<DB>({ dialect: new WorkDialect(singleClientPool(client)) })));
    return new WriteConnection(client, db);
  }

  /** Begins the transaction; `text` (a prepared statement) follows BEGIN at once. Its result. */
  async begin<R extends object>(text: string, values: unknown[]): Promise<QueryResult<R>> {
    const [, result] = await Promise.all([this.client.query('BEGIN'), namedQuery<R>(this.client, text, values)]);
    return result;
  }

  /** A prepared statement of the transaction. */
  query<R extends object>(text: string, values: unknown[]): Promise<QueryResult<R>> {
    return namedQuery<R>(this.client, text, values);
  }

  async commit(): Promise<void> {
    try {
      await this.client.query('COMMIT');
    } finally {
      this.ended = true;
    }
  }

  /** Rolls back a transaction still open, and returns the connection to the pool (or drops it if it failed). */
  async release(): Promise<void> {
    if (this.ended) {
      this.client.release();
      return;
    }
    try {
      await this.client.query('ROLLBACK');
      this.client.release();
    } catch (e) {
      this.client.release(e instanceof Error ? e : new Error(String(e)));
    }
  }
}
