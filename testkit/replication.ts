import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { freePort } from './ports';

/**
 * A PostgreSQL primary and hot standby of our own (initdb, pg_basebackup -R), in temporary folders on free loopback
 * ports, for the replica and failover tests and bench:replica. The binaries come from PATH or /usr/lib/postgresql/<v>/bin
 * (`postgresBinaries`); run as root, the servers run as the `postgres` user (initdb refuses root).
 */

const NEEDED = ['initdb', 'pg_ctl', 'pg_basebackup', 'postgres'];

/** The folder holding initdb, pg_ctl, pg_basebackup and postgres, or null. */
export function postgresBinaries(): string | null {
  const candidates: string[] = [];
  if (process.env.LEDGERLINE_PG_BIN) candidates.push(process.env.LEDGERLINE_PG_BIN);
  const lib = '/usr/lib/postgresql';
  if (fs.existsSync(lib)) {
    for (const v of fs.readdirSync(lib).sort((a, b) => Number(b) - Number(a)))
      candidates.push(path.join(lib, v, 'bin'));
  }
  candidates.push(...(process.env.PATH ?? '').split(':').filter(Boolean));
  return candidates.find((dir) => NEEDED.every((b) => fs.existsSync(path.join(dir, b)))) ?? null;
}

const isRoot = () => process.getuid?.() === 0;

/** Runs a PostgreSQL binary, as `postgres` when we are root. */
function run(bin: string, args: string[], timeoutMs = 120_000): string {
  const file = path.join(postgresBinaries()!, bin);
  const [cmd, argv] = isRoot() ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
  return execFileSync(cmd, argv, { encoding: 'utf8', timeout: timeoutMs, stdio: ['ignore', 'pipe', 'pipe'] });
}

function tempDir(tag: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `ledgerline-${tag}-`));
  if (isRoot()) execFileSync('chown', ['postgres:', dir]);
  fs.chmodSync(dir, 0o700);
  return dir;
}

export class PgServer {
  constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  get data(): string {
    return path.join(this.dir, 'data');
  }

  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  start(): void {
    run('pg_ctl', [
      '-D',
      this.data,
      '-l',
      path.join(this.dir, 'log'),
      '-w',
      '-t',
      '60',
      '-o',
      `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1`,
      'start',
    ]);
  }

  /** Fast shutdown (immediate: like a crashed host). */
  stop(mode: 'fast' | 'immediate' = 'fast'): void {
    run('pg_ctl', ['-D', this.data, '-m', mode, '-w', '-t', '60', 'stop']);
  }

  promote(): void {
    run('pg_ctl', ['-D', this.data, '-w', '-t', '60', 'promote']);
  }

  running(): boolean {
    try {
      run('pg_ctl', ['-D', this.data, 'status']);
      return true;
    } catch {
      return false;
    }
  }

  async query<R extends Record<string, unknown>>(text: string, database = 'postgres'): Promise<R[]> {
    const c = new Client({ connectionString: this.url(database) });
    await c.connect();
    try {
      return (await c.query<R>(text)).rows;
    } finally {
      await c.end();
    }
  }

  /** Stops the server if it runs, and removes its folder. */
  remove(): void {
    if (this.running()) {
      try {
        this.stop('immediate');
      } catch {
        /* already gone */
      }
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

export interface ReplicatedPair {
  primary: PgServer;
  standby: PgServer;
  /** The ledger database's name (on both). */
  database: string;
  remove(): void;
}

/**
 * A primary with `database` created, and a hot standby streaming from it. `synchronous`: the primary waits for the
 * standby's flush at each commit (synchronous_standby_names = '*', synchronous_commit = on).
 */
export async function startReplicatedPair(
  opts: { database?: string; synchronous?: boolean } = {},
): Promise<ReplicatedPair> {
  const database = opts.database ?? 'ledger';
  const primary = new PgServer(tempDir('primary'), await freePort());
  const standby = new PgServer(tempDir('standby'), await freePort());
  try {
    run('initdb', ['-D', primary.data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
    fs.appendFileSync(
      path.join(primary.data, 'postgresql.conf'),
      [
        'wal_level = replica',
        'max_wal_senders = 4',
        'hot_standby = on',
        'fsync = on',
        'shared_buffers = 64MB',
        'max_connections = 100',
        opts.synchronous ? "synchronous_standby_names = '*'" : '',
        '',
      ].join('\n'),
    );
    primary.start();
    await primary.query(`CREATE DATABASE ${database}`);
    run('pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(primary.port),
      '-U',
      'postgres',
      '-D',
      standby.data,
      '-R',
      '-X',
      'stream',
      '-c',
      'fast',
    ]);
    standby.start();
    return {
      primary,
      standby,
      database,
      remove() {
        standby.remove();
        primary.remove();
      },
    };
  } catch (e) {
    standby.remove();
    primary.remove();
    throw e;
  }
}

/** Whether tests that need their own primary and standby can run; prints why not (and fails under CI=true) when not. */
export function replicationAvailable(suite: string): boolean {
  if (postgresBinaries()) return true;
  const why = `${suite}: PostgreSQL's server binaries (${NEEDED.join(', ')}) were not found in PATH, /usr/lib/postgresql/*/bin or LEDGERLINE_PG_BIN`;
  if (process.env.CI === 'true') throw new Error(`${why} (required under CI=true)`);
  console.warn(`\n${'='.repeat(100)}\nSKIPPED: ${why}\n${'='.repeat(100)}\n`);
  return false;
}
