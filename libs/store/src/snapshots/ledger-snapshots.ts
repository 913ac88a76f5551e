import { Client, Pool } from 'pg';
import { migrate } from '../migrator';

/**
 * Named snapshots and forks of a whole ledger, made with PostgreSQL's `CREATE DATABASE … TEMPLATE` (a file-level copy of
 * the ledger's database). A snapshot of the ledger in database `D` is the database `D__snap__<name>`, a fork is
 * `D__fork__<name>`; what the snapshot was taken of (ledger end, time) is kept as the database's comment. Every
 * statement runs on a maintenance connection to the server's `postgres` database, never on `D` itself.
 *
 * `CREATE DATABASE … TEMPLATE D` needs no other session on `D`; restore renames and drops `D`, which needs the same. The
 * caller must have stopped using `D` (the server quiesces its requests, writer and listener first); these functions then
 * refuse new connections to `D`, end the sessions that remain (idle pooled connections) and allow connections again.
 */

export const SNAPSHOT_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,39}$/;

export interface SnapshotInfo {
  name: string;
  /** The ledger end when the snapshot was taken. */
  ledgerEnd: number;
  createdAt: string;
  /** Bytes on disk. */
  sizeBytes: number;
}

export interface ForkInfo {
  name: string;
  /** Connection string of the forked ledger's database (start a Ledgerline on it with DATABASE_URL). */
  databaseUrl: string;
  fromSnapshot: string;
}

export class SnapshotError extends Error {
  constructor(
    readonly kind: 'invalid-name' | 'not-found' | 'exists' | 'name-too-long',
    message: string,
  ) {
    super(message);
  }
}

interface Meta {
  kind: 'ledgerline-snapshot' | 'ledgerline-fork';
  name: string;
  ledgerEnd: number;
  createdAt: string;
  fromSnapshot?: string;
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** The database a connection string names, and the same server's `postgres` database. */
export function databaseOfUrl(url: string): {
  database: string;
  maintenanceUrl: string;
  urlFor(database: string): string;
} {
  const u = new URL(url);
  const database = decodeURIComponent(u.pathname.replace(/^\//, '')) || u.username || 'postgres';
  const urlFor = (db: string) => {
    const v = new URL(url);
    v.pathname = '/' + encodeURIComponent(db);
    return v.toString();
  };
  return { database, maintenanceUrl: urlFor('postgres'), urlFor };
}

export class LedgerSnapshots {
  readonly database: string;
  private readonly urls: ReturnType<typeof databaseOfUrl>;
  private readonly admin: Pool;
  /** Old databases dropped after a restore or reset answered (dropping a large one takes a while). */
  private readonly pendingDrops = new Set<Promise<void>>();

  constructor(private readonly url: string) {
    this.urls = databaseOfUrl(url);
    this.database = this.urls.database;
    this.admin = new Pool({
      connectionString: this.urls.maintenanceUrl,
      max: 2,
      application_name: 'ledgerline-snapshots',
    });
    this.admin.on('error', () => undefined);
  }

  snapshotDatabase(name: string): string {
    return this.derived('snap', name);
  }

  forkDatabase(name: string): string {
    return this.derived('fork', name);
  }

  async list(): Promise<SnapshotInfo[]> {
    const prefix = `${this.database}__snap__`;
    const { rows } = await this.admin.query<{ datname: string; comment: string | null; size: string }>(
      `SELECT datname, shobj_description(oid, 'pg_database') AS comment, pg_database_size(oid)::text AS size
         FROM pg_database WHERE starts_with(datname, $1) ORDER BY datname`,
      [prefix],
    );
    return rows.flatMap((r) => {
      const meta = parseMeta(r.comment);
      if (!meta || meta.kind !== 'ledgerline-snapshot') return [];
      return [{ name: meta.name, ledgerEnd: meta.ledgerEnd, createdAt: meta.createdAt, sizeBytes: Number(r.size) }];
    });
  }

  async get(name: string): Promise<SnapshotInfo | null> {
    return (await this.list()).find((s) => s.name === name) ?? null;
  }

  /** Copies the ledger's database as snapshot `name`. The ledger must be quiescent (see the module comment). */
  async snapshot(name: string, opts: { replace?: boolean } = {}): Promise<SnapshotInfo> {
    const target = this.snapshotDatabase(name);
    const ledgerEnd = await this.ledgerEndOf(this.database);
    const existing = await this.exists(target);
    if (existing && !opts.replace) throw new SnapshotError('exists', `snapshot '${name}' already exists`);
    const meta: Meta = { kind: 'ledgerline-snapshot', name, ledgerEnd, createdAt: new Date().toISOString() };
    const staging = this.derived('tmp', name);
    await this.admin.query(`DROP DATABASE IF EXISTS ${ident(staging)}`);
    await this.isolated(this.database, () =>
      this.admin.query(`CREATE DATABASE ${ident(staging)} TEMPLATE ${ident(this.database)}`),
    );
    if (existing) await this.admin.query(`DROP DATABASE ${ident(target)} WITH (FORCE)`);
    await this.admin.query(`ALTER DATABASE ${ident(staging)} RENAME TO ${ident(target)}`);
    await this.admin.query(`COMMENT ON DATABASE ${ident(target)} IS ${literal(JSON.stringify(meta))}`);
    const size = await this.admin.query<{ size: string }>('SELECT pg_database_size($1)::text AS size', [target]);
    return { name, ledgerEnd, createdAt: meta.createdAt, sizeBytes: Number(size.rows[0]?.size ?? 0) };
  }

  /**
   * Replaces the ledger's database with a copy of snapshot `name` (the snapshot stays). The copy is made first, so a
   * failure leaves the ledger as it was; the old database is dropped afterwards (`settled()` waits for that).
   */
  async restore(name: string): Promise<SnapshotInfo> {
    const info = await this.get(name);
    if (!info) throw new SnapshotError('not-found', `snapshot '${name}' not found`);
    const staging = this.derived('tmp', 'restore');
    await this.admin.query(`DROP DATABASE IF EXISTS ${ident(staging)}`);
    await this.admin.query(`CREATE DATABASE ${ident(staging)} TEMPLATE ${ident(this.snapshotDatabase(name))}`);
    await this.swapIn(staging);
    return info;
  }

  /**
   * Replaces the ledger's database with an empty, migrated one that keeps this node's secrets (participant key,
   * generated JWT secret): the participant id and issued tokens stay valid. With `snapshot`, the same as `restore`.
   */
  async reset(snapshot?: string): Promise<{ ledgerEnd: number }> {
    if (snapshot) return { ledgerEnd: (await this.restore(snapshot)).ledgerEnd };
    const staging = this.derived('tmp', 'reset');
    await this.admin.query(`DROP DATABASE IF EXISTS ${ident(staging)}`);
    await this.createEmpty(staging);
    await this.swapIn(staging);
    return { ledgerEnd: 0 };
  }

  /**
   * A new ledger database `name` (a fork): a copy of snapshot `snapshot`, or with none of an empty, migrated ledger that
   * keeps this node's secrets (made once per LedgerSnapshots, then copied in milliseconds).
   */
  async forkNew(name: string, snapshot?: string): Promise<ForkInfo> {
    if (snapshot) return this.fork(snapshot, name);
    const template = await this.emptyTemplate();
    const target = this.forkDatabase(name);
    if (await this.exists(target)) throw new SnapshotError('exists', `fork '${name}' already exists`);
    await this.admin.query(`CREATE DATABASE ${ident(target)} TEMPLATE ${ident(template)}`);
    const meta: Meta = {
      kind: 'ledgerline-fork',
      name,
      ledgerEnd: 0,
      createdAt: new Date().toISOString(),
      fromSnapshot: '',
    };
    await this.admin.query(`COMMENT ON DATABASE ${ident(target)} IS ${literal(JSON.stringify(meta))}`);
    return { name, databaseUrl: this.urls.urlFor(target), fromSnapshot: '' };
  }

  private emptyMade: Promise<string> | null = null;

  /** The empty ledger new forks copy: made afresh by the first call (so it has the current migrations). */
  private emptyTemplate(): Promise<string> {
    this.emptyMade ??= (async () => {
      const db = this.derived('tmp', 'empty');
      await this.admin.query(`DROP DATABASE IF EXISTS ${ident(db)} WITH (FORCE)`);
      await this.createEmpty(db);
      return db;
    })().catch((e) => {
      this.emptyMade = null;
      throw e;
    });
    return this.emptyMade;
  }

  /** Database `db`: empty, migrated, with this node's secrets. */
  private async createEmpty(db: string): Promise<void> {
    await this.admin.query(`CREATE DATABASE ${ident(db)} TEMPLATE template0`);
    const secrets = await this.withClient(this.database, (c) =>
      c.query<{ name: string; value: string }>('SELECT name, value FROM node_secrets'),
    );
    const pool = new Pool({ connectionString: this.urls.urlFor(db), max: 1 });
    try {
      await migrate(pool);
      for (const s of secrets.rows)
        await pool.query('INSERT INTO node_secrets (name, value) VALUES ($1, $2)', [s.name, s.value]);
    } finally {
      await pool.end();
    }
  }

  /** A new, independent ledger database copied from snapshot `snapshot`. */
  async fork(snapshot: string, name: string): Promise<ForkInfo> {
    if (!(await this.get(snapshot))) throw new SnapshotError('not-found', `snapshot '${snapshot}' not found`);
    const target = this.forkDatabase(name);
    if (await this.exists(target)) throw new SnapshotError('exists', `fork '${name}' already exists`);
    await this.admin.query(`CREATE DATABASE ${ident(target)} TEMPLATE ${ident(this.snapshotDatabase(snapshot))}`);
    const meta: Meta = {
      kind: 'ledgerline-fork',
      name,
      ledgerEnd: 0,
      createdAt: new Date().toISOString(),
      fromSnapshot: snapshot,
    };
    await this.admin.query(`COMMENT ON DATABASE ${ident(target)} IS ${literal(JSON.stringify(meta))}`);
    return { name, databaseUrl: this.urls.urlFor(target), fromSnapshot: snapshot };
  }

  async listForks(): Promise<ForkInfo[]> {
    const { rows } = await this.admin.query<{ datname: string; comment: string | null }>(
      `SELECT datname, shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE starts_with(datname, $1) ORDER BY datname`,
      [`${this.database}__fork__`],
    );
    return rows.flatMap((r) => {
      const meta = parseMeta(r.comment);
      if (!meta || meta.kind !== 'ledgerline-fork') return [];
      return [{ name: meta.name, databaseUrl: this.urls.urlFor(r.datname), fromSnapshot: meta.fromSnapshot ?? '' }];
    });
  }

  /** Drops snapshot `name`. False if there is none. */
  async delete(name: string): Promise<boolean> {
    if (!(await this.get(name))) return false;
    await this.admin.query(`DROP DATABASE ${ident(this.snapshotDatabase(name))} WITH (FORCE)`);
    return true;
  }

  /** Drops fork `name` (its sessions are ended). False if there is none. */
  async deleteFork(name: string): Promise<boolean> {
    const target = this.forkDatabase(name);
    if (!(await this.exists(target))) return false;
    await this.admin.query(`DROP DATABASE ${ident(target)} WITH (FORCE)`);
    return true;
  }

  /** Resolves once the databases replaced by earlier restores and resets are dropped. */
  async settled(): Promise<void> {
    while (this.pendingDrops.size) await Promise.all([...this.pendingDrops]);
  }

  async close(): Promise<void> {
    await this.settled();
    const empty = await this.emptyMade?.catch(() => null);
    if (empty) await this.admin.query(`DROP DATABASE IF EXISTS ${ident(empty)} WITH (FORCE)`).catch(() => undefined);
    await this.admin.end();
  }

  private derived(kind: 'snap' | 'fork' | 'tmp', name: string): string {
    if (!SNAPSHOT_NAME_PATTERN.test(name)) {
      throw new SnapshotError('invalid-name', `name '${name}' must match ${SNAPSHOT_NAME_PATTERN.source}`);
    }
    const db = `${this.database}__${kind}__${name}`;
    if (Buffer.byteLength(db) > 63) {
      throw new SnapshotError(
        'name-too-long',
        `database name '${db}' is longer than PostgreSQL's 63 bytes: use a shorter name`,
      );
    }
    return db;
  }

  /** Swaps `staging` in as the ledger's database; the old one is renamed away and dropped in the background. */
  private async swapIn(staging: string): Promise<void> {
    const old = this.derived('tmp', `old-${Date.now().toString(36)}`);
    await this.isolated(
      this.database,
      async () => {
        await this.admin.query(`ALTER DATABASE ${ident(this.database)} RENAME TO ${ident(old)}`);
        await this.admin.query(`ALTER DATABASE ${ident(staging)} RENAME TO ${ident(this.database)}`);
      },
      old,
    );
    const drop: Promise<void> = this.admin
      .query(`DROP DATABASE IF EXISTS ${ident(old)} WITH (FORCE)`)
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => this.pendingDrops.delete(drop));
    this.pendingDrops.add(drop);
  }

  /**
   * Runs `action` while database `db` refuses new connections and has no sessions. Retries while a session is still
   * closing (PostgreSQL's 55006 "is being accessed by other users"). `renamedTo`: where `db` is after `action`.
   */
  private async isolated<T>(db: string, action: () => Promise<T>, renamedTo?: string): Promise<T> {
    await this.admin.query(`ALTER DATABASE ${ident(db)} WITH ALLOW_CONNECTIONS false`);
    try {
      for (let attempt = 0; ; attempt++) {
        await this.admin.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [db],
        );
        try {
          return await action();
        } catch (e) {
          if ((e as { code?: string }).code !== '55006' || attempt >= 50) throw e;
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    } finally {
      const now = (await this.exists(db)) ? db : renamedTo;
      if (now)
        await this.admin.query(`ALTER DATABASE ${ident(now)} WITH ALLOW_CONNECTIONS true`).catch(() => undefined);
    }
  }

  private async exists(db: string): Promise<boolean> {
    const { rowCount } = await this.admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [db]);
    return (rowCount ?? 0) > 0;
  }

  private async ledgerEndOf(db: string): Promise<number> {
    const { rows } = await this.withClient(db, (c) =>
      c.query<{ end: string }>('SELECT ledger_offset::text AS end FROM ledger_head WHERE id = 1'),
    );
    return Number(rows[0]?.end ?? 0);
  }

  private async withClient<T>(db: string, f: (c: Client) => Promise<T>): Promise<T> {
    const client = new Client({ connectionString: db === this.database ? this.url : this.urls.urlFor(db) });
    await client.connect();
    try {
      return await f(client);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

function parseMeta(comment: string | null): Meta | null {
  if (!comment) return null;
  try {
    const m = JSON.parse(comment) as Meta;
    return m && typeof m.name === 'string' ? m : null;
  } catch {
    return null;
  }
}
