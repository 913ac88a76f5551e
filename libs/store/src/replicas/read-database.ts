import { sql, type Kysely } from 'kysely';
import type { DB } from '../schema';
import { isDatabaseUnavailable, openDatabase, type Database } from '../database';
import { prepared } from '../prepared-statements';

export interface ReadDatabaseOptions {
  /** How long a read naming an offset beyond every replica waits for one to replay it before it goes to the primary. */
  waitMs?: number;
  /** The background poll of each replica's head (the follower's fallback when no primary commit wakes it). */
  pollMs?: number;
  /** Connections per replica. */
  max?: number;
  applicationName?: string;
}

const CATCH_UP_POLL_MS = 5;
/** How long a wake-up by a primary commit keeps the fast catch-up poll going without the replica reaching it. */
const CATCH_UP_WINDOW_MS = 1_000;
/** Tries of one read on a replica that cancels it for a recovery conflict, before the read goes to the primary. */
const RECOVERY_CONFLICT_TRIES = 3;

/**
 * A hot standby's statement cancelled because replay needed what it was reading (a "conflict with recovery",
 * SQLSTATE 40001 or 40P01 on a standby). The read is simply run again.
 */
export function isRecoveryConflict(e: unknown): boolean {
  const err = e as { code?: string; message?: string };
  return (err?.code === '40001' || err?.code === '40P01') && /conflict with recovery/i.test(err?.message ?? '');
}

/** One read replica (a hot standby) and what the follower knows of it. */
export class Replica {
  /** The replica's own `ledger_head` offset as last read; -1 until read. */
  head = -1;
  /** False while the replica does not answer (its reads go to the primary). */
  up = false;
  private target = 0;
  private catchUpUntil = 0;
  private polling = false;
  /** A catch-up poll is already scheduled: wake-ups in between add nothing (at most one read per CATCH_UP_POLL_MS). */
  private catchUpScheduled = false;
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    readonly name: string,
    readonly database: Database,
    private readonly pollMs: number,
    private readonly onHead: () => void,
  ) {}

  get db(): Kysely<DB> {
    return this.database.db;
  }

  start(): void {
    this.poll();
  }

  /** The primary's ledger end moved to `end`: read this replica's head quickly until it has replayed that far. */
  wake(end: number): void {
    if (end > this.target) this.target = end;
    this.catchUpUntil = Date.now() + CATCH_UP_WINDOW_MS;
    if (this.head < end && !this.catchUpScheduled) this.poll();
  }

  /** A read found the replica gone: its reads go to the primary until the follower reads its head again. */
  markDown(): void {
    this.up = false;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.database.close();
  }

  /** Reads the head, again every CATCH_UP_POLL_MS while behind a recent wake-up, else every pollMs. */
  private poll(): void {
    if (this.polling || this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.catchUpScheduled = false;
    this.polling = true;
    prepared(sql<{ ledger_offset: string }>`SELECT ledger_offset FROM ledger_head WHERE id = 1`)
      .execute(this.db)
      .then(
        ({ rows }) => {
          this.up = true;
          const head = Number(rows[0]?.ledger_offset ?? 0);
          if (head !== this.head) {
            this.head = head;
            this.onHead();
          }
        },
        () => {
          this.up = false;
          this.onHead();
        },
      )
      .finally(() => {
        this.polling = false;
        if (this.stopped) return;
        const catchingUp = this.up && this.head < this.target && Date.now() < this.catchUpUntil;
        this.catchUpScheduled = catchingUp;
        this.timer = setTimeout(() => this.poll(), catchingUp ? CATCH_UP_POLL_MS : this.pollMs);
        this.timer.unref();
      });
  }
}

/**
 * Where the query side reads: hot standbys (`LEDGER_READ_DATABASE_URL`) when there are any, else the primary. The primary
 * keeps the writer, the ledger end answered to clients, and every read no replica can serve yet.
 *
 * A standby holds a prefix of the log (the head lock makes commit order offset order, and a standby replays commits in
 * that order), so its own `ledger_head` says exactly which offsets it can serve. It receives no NOTIFY, so a follower per
 * replica reads that head: woken by the primary's commits (fast polls until it has caught up), and by a slow background
 * poll otherwise. A read that needs offsets up to X (`at`) goes to a replica whose head has reached X, waits up to
 * `waitMs` for one, then goes to the primary; a lookup by id (`lookup`) that misses on a replica is retried on the
 * primary, since the replica may not have replayed it yet. A replica that does not answer, or keeps cancelling the read for
 * a recovery conflict, is skipped for the primary.
 */
export class ReadDatabase {
  readonly replicas: Replica[];
  private readonly waitMs: number;
  private primaryEnd = 0;
  private next = 0;
  private waiters = new Set<() => void>();

  constructor(
    readonly primary: Kysely<DB>,
    replicaUrls: string[] = [],
    opts: ReadDatabaseOptions = {},
  ) {
    this.waitMs = opts.waitMs ?? 500;
    this.replicas = replicaUrls.map(
      (url, i) =>
        new Replica(
          replicaName(url, i),
          // A standby rejects writes; a short connect timeout keeps a dead one from holding reads up.
          openDatabase(url, {
            max: opts.max ?? 10,
            applicationName: opts.applicationName ?? 'ledgerline-read',
            connectionTimeoutMillis: 1000,
          }),
          opts.pollMs ?? 250,
          () => this.headMoved(),
        ),
    );
  }

  /** A ReadDatabase that reads the primary only. */
  static primaryOnly(primary: Kysely<DB>): ReadDatabase {
    return new ReadDatabase(primary);
  }

  get hasReplicas(): boolean {
    return this.replicas.length > 0;
  }

  start(): void {
    for (const r of this.replicas) r.start();
  }

  /** The primary's ledger end moved (a local commit or another instance's NOTIFY): wakes the followers. */
  primaryMoved(end: number): void {
    if (end <= this.primaryEnd) return;
    this.primaryEnd = end;
    for (const r of this.replicas) r.wake(end);
  }

  /** Offsets each replica is behind the primary's ledger end as last seen (null: the replica does not answer). */
  lag(): Array<{ replica: string; offsets: number | null }> {
    return this.replicas.map((r) => ({
      replica: r.name,
      offsets: r.up && r.head >= 0 ? Math.max(0, this.primaryEnd - r.head) : null,
    }));
  }

  /**
   * Runs `read` on a database that holds every offset up to `offset`: a replica that has replayed it (round robin among
   * those), after waiting up to `waitMs` for one, else the primary.
   */
  async at<T>(offset: number, read: (db: Kysely<DB>) => Promise<T>): Promise<T> {
    if (!this.replicas.length) return read(this.primary);
    const replica = this.serving(offset) ?? (await this.waitForReplica(offset));
    return replica ? this.onReplica(replica, read) : read(this.primary);
  }

  /**
   * A lookup by id: on a replica that answers (whatever its head), and on the primary when the replica found nothing
   * (`missing`), since a lagging replica may not have the row yet.
   */
  async lookup<T>(read: (db: Kysely<DB>) => Promise<T>, missing: (result: T) => boolean): Promise<T> {
    const replica = this.replicas.length ? this.serving(0) : undefined;
    if (!replica) return read(this.primary);
    const result = await this.onReplica(replica, read);
    return missing(result) ? read(this.primary) : result;
  }

  async close(): Promise<void> {
    await Promise.all(this.replicas.map((r) => r.stop()));
  }

  /** A replica that is up and has replayed `offset`, round robin. */
  private serving(offset: number): Replica | undefined {
    const n = this.replicas.length;
    for (let i = 0; i < n; i++) {
      const r = this.replicas[(this.next + i) % n];
      if (r.up && r.head >= offset) {
        this.next = (this.next + i + 1) % n;
        return r;
      }
    }
    return undefined;
  }

  private waitForReplica(offset: number): Promise<Replica | undefined> {
    if (!this.replicas.some((r) => r.up)) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const check = () => {
        const r = this.serving(offset);
        if (r) finish(r);
      };
      const finish = (r: Replica | undefined) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(r);
      };
      const timer = setTimeout(() => finish(undefined), this.waitMs);
      this.waiters.add(check);
      for (const r of this.replicas) r.wake(offset);
    });
  }

  private headMoved(): void {
    for (const w of [...this.waiters]) w();
  }

  private async onReplica<T>(replica: Replica, read: (db: Kysely<DB>) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await read(replica.db);
      } catch (e) {
        if (isDatabaseUnavailable(e)) {
          replica.markDown();
          return read(this.primary);
        }
        if (!isRecoveryConflict(e)) throw e;
        if (attempt >= RECOVERY_CONFLICT_TRIES) return read(this.primary);
      }
    }
  }
}

/** host:port/database of a replica URL, without credentials (the metric's label). */
function replicaName(url: string, i: number): string {
  try {
    const u = new URL(url);
    return `${u.hostname}${u.port ? `:${u.port}` : ''}${u.pathname}`;
  } catch {
    return `replica-${i}`;
  }
}
