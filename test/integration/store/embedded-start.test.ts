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
 * `postmaster.pid` naming a zombie (the killed postmaster, not reaped yet) or a PID another program has since must not
 * stop the start; and a start PostgreSQL refuses reports PostgreSQL's own reason.
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
  const sh = spawn('sh', ['-c', 'sleep 0.5 & echo $!; exec sleep 300'], { stdio: ['ignore', 'pipe', 'inherit'], ...asServerUser() });
  children.push(sh);
  const pid = await new Promise<number>((resolve) => sh.stdout!.once('data', (d) => resolve(Number(String(d).trim()))));
  for (let i = 0; i < 500 && processState(pid) !== 'Z'; i++) await new Promise((r) => setTimeout(r, 10));
  expect(processState(pid)).toBe('Z');
  expect(fs.readFileSync(`/proc/${sh.pid}/cmdline`, 'utf8').split('\0')[0]).toBe('sleep');
  return pid;
}

/** postmaster.pid as a run killed with its postmaster leaves it, naming `pid`. */
function leaveLockFileOf(pid: number): void {
  fs.writeFileSync(lockFile, liveLockFile.replace(/^\d+\n/, `${pid}\n`));
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

  it('starts the first time when postmaster.pid names a PID another program has now', { timeout: 120_000 }, async () => {
    const other = spawn('sleep', ['300'], { stdio: 'ignore', ...asServerUser() });
    children.push(other);
    leaveLockFileOf(other.pid!);
    const logs: string[] = [];
    handle = await startEmbeddedPostgres({ dataDir, port, log: (m) => logs.push(m) });
    try {
      expect(await selectOne(handle.url)).toBe(1);
      expect(logs).toContain(`removing the stale postmaster.pid of a previous run (pid ${other.pid} is another process now)`);
      expect(processState(other.pid!)).not.toBeNull(); // left running
    } finally {
      await handle.stop();
      handle = undefined;
    }
  });

  it("reports PostgreSQL's own reason when it refuses to start", { timeout: 120_000 }, async () => {
    const versionFile = path.join(pgDir, 'PG_VERSION');
    const version = fs.readFileSync(versionFile, 'utf8');
    fs.writeFileSync(versionFile, '9.6\n');
    try {
      const failure = await startEmbeddedPostgres({ dataDir, port }).then(
        () => null,
        (e: Error) => e.message,
      );
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
      const failure = await startEmbeddedPostgres({ dataDir, port }).then(
        () => null,
        (e: Error) => e.message,
      );
      expect(failure).toContain('could not bind IPv4 address "127.0.0.1": Address already in use');
      expect(failure).toContain('FATAL:  could not create any TCP/IP sockets');
      expect(failure).toContain(`Another server uses port ${port}: set LEDGER_EMBEDDED_PG_PORT to a free port.`);
    } finally {
      await new Promise((r) => holder.close(r));
    }
  });
});
