import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '@ledgerline/store';
import { freePort } from '../../support/server-process';

/**
 * Starting the embedded PostgreSQL (libs/store/src/embedded-postgres.ts) on a data folder a crash left behind:
 * `postmaster.pid` naming a zombie (the killed postmaster, not reaped yet) or a PID another program got after the file
 * was written must not stop the start; a file naming a live process that may have written it stays, and so does one
 * that changes while it is being removed, or whose postmaster's shared memory is still in use; and a start PostgreSQL
 * refuses reports PostgreSQL's own reason.
 */
let dataDir: string;
let pgDir: string;
let port: number;
let lockFile: string;
/** postmaster.pid as a running server of this folder wrote it. */
let liveLockFile: string;
let handle: EmbeddedPostgresHandle | undefined;
const children: ChildProcess[] = [];

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerline-start-'));
  pgDir = path.join(dataDir, 'pg');
  lockFile = path.join(pgDir, 'postmaster.pid');
  port = await freePort();
  const first = await startEmbeddedPostgres({ dataDir, port });
  liveLockFile = fs.readFileSync(lockFile, 'utf8');
  await first.stop();
  expect(fs.existsSync(lockFile)).toBe(false);
}, 120_000);

afterAll(async () => {
  await handle?.stop();
  for (const c of children) c.kill('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function processState(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return null;
  }
}

/**
 * Processes run as the user PostgreSQL runs as (the owner of its data folder): PostgreSQL takes a PID it may not signal
 * for a process of another user, which cannot be its postmaster, and ignores it.
 */
function asServerUser(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const { uid, gid } = fs.statSync(pgDir);
  return { uid, gid };
}

/**
 * A zombie: the child of a process that never reaps it. The shell forks a short `sleep` and replaces itself with a long
 * one, which does not wait for children; the short one exits after that and stays a zombie while its parent lives.
 */
async function zombie(): Promise<number> {
  const sh = spawn('sh', ['-c', 'sleep 0.5 & echo $!; exec sleep 300'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    ...asServerUser(),
  });
  children.push(sh);
  const pid = await new Promise<number>((resolve) => sh.stdout!.once('data', (d) => resolve(Number(String(d).trim()))));
  for (let i = 0; i < 500 && processState(pid) !== 'Z'; i++) await new Promise((r) => setTimeout(r, 10));
  expect(processState(pid)).toBe('Z');
  expect(fs.readFileSync(`/proc/${sh.pid}/cmdline`, 'utf8').split('\0')[0]).toBe('sleep');
  return pid;
}

/**
 * postmaster.pid as a run killed with its postmaster leaves it, naming `pid`; `startedAt` (seconds since the epoch) is the
 * postmaster's start time on its line 3.
 */
function lockFileOf(pid: number, startedAt: number): string {
  const lines = liveLockFile.split('\n');
  lines[0] = String(pid);
  lines[2] = String(startedAt);
  return lines.join('\n');
}

function leaveLockFileOf(pid: number, startedAt = Number(liveLockFile.split('\n')[2])): void {
  fs.writeFileSync(lockFile, lockFileOf(pid, startedAt));
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A process that runs until the test ends, as the server's user. */
function otherProcess(): number {
  const other = spawn('sleep', ['300'], { stdio: 'ignore', ...asServerUser() });
  children.push(other);
  return other.pid!;
}

async function startFailure(dir = dataDir, log?: (m: string) => void): Promise<string | null> {
  return startEmbeddedPostgres({ dataDir: dir, port, log }).then(
    async (h) => {
      await h.stop();
      return null;
    },
    (e: Error) => e.message,
  );
}

async function selectOne(url: string): Promise<number> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ one: number }>('SELECT 1 AS one')).rows[0].one;
  } finally {
    await client.end();
  }
}

describe('embedded PostgreSQL start after a crash', () => {
  it('starts the first time when postmaster.pid names a zombie', { timeout: 120_000 }, async () => {
    const pid = await zombie();
    leaveLockFileOf(pid);
    const logs: string[] = [];
    handle = await startEmbeddedPostgres({ dataDir, port, log: (m) => logs.push(m) });
    try {
      expect(await selectOne(handle.url)).toBe(1);
      expect(logs).toContain(`removing the stale postmaster.pid of a previous run (pid ${pid} is a zombie)`);
      expect(processState(pid)).toBe('Z'); // still the zombie it was: nothing waited for it to go
    } finally {
      await handle.stop();
      handle = undefined;
    }
  });

  it(
    'starts the first time when postmaster.pid names a PID another program got after the file was written',
    { timeout: 120_000 },
    async () => {
      const other = otherProcess();
      leaveLockFileOf(other, nowSeconds() - 60);
      const logs: string[] = [];
      handle = await startEmbeddedPostgres({ dataDir, port, log: (m) => logs.push(m) });
      try {
        expect(await selectOne(handle.url)).toBe(1);
        expect(logs).toContain(
          `removing the stale postmaster.pid of a previous run (pid ${other} is another process now)`,
        );
        expect(processState(other)).not.toBeNull(); // left running
      } finally {
        await handle.stop();
        handle = undefined;
      }
    },
  );

  it(
    'leaves postmaster.pid naming a live process that started before the file was written',
    { timeout: 120_000 },
    async () => {
      const other = otherProcess();
      const text = lockFileOf(other, nowSeconds());
      fs.writeFileSync(lockFile, text);
      const logs: string[] = [];
      try {
        const failure = await startFailure(dataDir, (m) => logs.push(m));
        expect(failure).toContain('FATAL:  lock file "postmaster.pid" already exists');
        expect(failure).toContain(`Is another postmaster (PID ${other}) running in data directory`);
        expect(fs.readFileSync(lockFile, 'utf8')).toBe(text);
        expect(logs.filter((m) => m.includes('stale'))).toEqual([]);
      } finally {
        fs.rmSync(lockFile, { force: true });
      }
    },
  );

  it('leaves postmaster.pid that changes while the stale one is being removed', { timeout: 120_000 }, async () => {
    const pid = await zombie();
    leaveLockFileOf(pid);
    // Another start takes the folder between the check and the removal: its postmaster's file replaces the stale one.
    const other = otherProcess();
    const replacement = lockFileOf(other, nowSeconds());
    const logs: string[] = [];
    try {
      const failure = await startFailure(dataDir, (m) => {
        logs.push(m);
        if (m.startsWith('removing the stale postmaster.pid')) fs.writeFileSync(lockFile, replacement);
      });
      expect(logs).toContain(`removing the stale postmaster.pid of a previous run (pid ${pid} is a zombie)`);
      expect(logs).toContain('postmaster.pid changed meanwhile: left in place');
      expect(failure).toContain(`Is another postmaster (PID ${other}) running in data directory`);
      expect(fs.readFileSync(lockFile, 'utf8')).toBe(replacement);
    } finally {
      fs.rmSync(lockFile, { force: true });
    }
  });

  it(
    "waits for the stale postmaster's shared memory, found by its shmid and creator, not its key",
    { timeout: 120_000 },
    async () => {
      // A postmaster running on this folder, seen from another folder whose postmaster.pid names it as a process that got
      // the PID after that file was written: the file is stale, but its shared memory segment (line 7: key, shmid) is in use.
      handle = await startEmbeddedPostgres({ dataDir, port });
      const otherDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerline-start-'));
      try {
        const running = fs.readFileSync(lockFile, 'utf8').split('\n');
        const [pid, shmid] = [Number(running[0]), running[6].trim().split(/\s+/)[1]];
        const otherPg = path.join(otherDir, 'pg');
        fs.mkdirSync(otherPg);
        fs.writeFileSync(path.join(otherPg, 'PG_VERSION'), fs.readFileSync(path.join(pgDir, 'PG_VERSION')));
        const lines = lockFileOf(pid, Number(running[2]) - 60).split('\n');
        lines[1] = otherPg;
        // The key as PostgreSQL writes a negative one (%lu), which /proc/sysvipc/shm prints signed (%d): here -1.
        lines[6] = `18446744073709551615 ${shmid}`;
        fs.writeFileSync(path.join(otherPg, 'postmaster.pid'), lines.join('\n'));
        const failure = await startFailure(otherDir);
        expect(failure).toMatch(
          new RegExp(
            `^\\d+ process\\(es\\) of a previous PostgreSQL server \\(pid ${pid}\\) still use the shared memory of `,
          ),
        );
        expect(fs.existsSync(path.join(otherPg, 'postmaster.pid'))).toBe(true);
        expect(await selectOne(handle.url)).toBe(1);
      } finally {
        await handle.stop();
        handle = undefined;
        fs.rmSync(otherDir, { recursive: true, force: true });
      }
    },
  );

  it("reports PostgreSQL's own reason when it refuses to start", { timeout: 120_000 }, async () => {
    const versionFile = path.join(pgDir, 'PG_VERSION');
    const version = fs.readFileSync(versionFile, 'utf8');
    fs.writeFileSync(versionFile, '9.6\n');
    try {
      const failure = await startFailure();
      expect(failure).toContain(`embedded PostgreSQL did not start (data in ${pgDir}, port ${port}): `);
      expect(failure).toContain('FATAL:  database files are incompatible with server');
      expect(failure).toContain('The data directory was initialized by PostgreSQL version 9.6');
      // Nothing about the port, which is free.
      expect(failure).not.toContain('LEDGER_EMBEDDED_PG_PORT');
    } finally {
      fs.writeFileSync(versionFile, version);
    }
  });

  it('names the port when another server holds it', { timeout: 120_000 }, async () => {
    const holder = net.createServer();
    await new Promise<void>((r) => holder.listen(port, '127.0.0.1', () => r()));
    try {
      const failure = await startFailure();
      expect(failure).toContain('could not bind IPv4 address "127.0.0.1": Address already in use');
      expect(failure).toContain('FATAL:  could not create any TCP/IP sockets');
      expect(failure).toContain(`Another server uses port ${port}: set LEDGER_EMBEDDED_PG_PORT to a free port.`);
    } finally {
      await new Promise((r) => holder.close(r));
    }
  });
});
