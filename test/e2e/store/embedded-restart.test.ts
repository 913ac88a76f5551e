import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventStore, openDatabase } from '@ledgerline/store';
import { foreignEvent } from '../../../testkit/foreign-event';
import {
  callJson,
  ensureBuilt,
  freePort,
  LEDGERCTL_MAIN,
  ROOT,
  startServerProcess,
} from '../../support/server-process';

/**
 * `npm start` with no DATABASE_URL: the embedded PostgreSQL keeps users, the generated JWT secret and the ledger end across
 * a graceful restart, across a SIGKILL of Node (which leaves the postmaster running: the next start stops it itself), and
 * across a SIGKILL of Node and its postmaster together. What a start makes of a postmaster.pid naming a zombie or another
 * live process is tested deterministically in test/integration/store/embedded-start.test.ts.
 */
let dataDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  ensureBuilt();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerline-embedded-'));
  env = { LEDGER_DATA_DIR: dataDir, LEDGER_EMBEDDED_PG_PORT: String(await freePort()), LEDGER_LOG_LEVEL: 'info' };
});

afterAll(() => {
  const pid = postmasterPid();
  if (pid && alive(pid)) process.kill(pid, 'SIGQUIT');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function postmasterPid(): number | null {
  try {
    return Number(fs.readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return null;
  }
}

/** The process runs: it exists and is not a zombie (an exited process its parent has not reaped yet). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return !fs.existsSync('/proc/self/stat');
  }
}

function ledgerctl(...args: string[]): string {
  const r = spawnSync(process.execPath, [LEDGERCTL_MAIN, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`ledgerctl ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout.trim();
}

describe('restart persistence on the embedded PostgreSQL', () => {
  it('keeps users, the generated secret and the ledger end across SIGTERM and SIGKILL restarts', async () => {
    const first = await startServerProcess(env);
    let token: string;
    try {
      expect(first.output()).toContain('npm run ledgerctl -- token --user participant_admin');
      // ledgerctl next to a running server shares its PostgreSQL and reads the generated secret.
      token = ledgerctl('token', '--user', 'participant_admin');
      expect(
        (await callJson(first.url, 'POST', '/v2/users', token, { user: { id: 'persist-me', primaryParty: '' } }))
          .status,
      ).toBe(200);
      // A second writer (this test) appends three ledger updates to the same database.
      const password = fs.readFileSync(path.join(dataDir, 'pg-password'), 'utf8').trim();
      const db = openDatabase(
        `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${env.LEDGER_EMBEDDED_PG_PORT}/ledgerline`,
        { max: 2 },
      );
      const store = new EventStore(db.db, { participantId: 'test::1220' });
      for (let i = 0; i < 3; i++)
        await store.append([
          foreignEvent({
            type: 'Probe',
            stream: `probe:${i}`,
            data: { i },
            update: { kind: 'Transaction', synchronizerId: 's::1220', parties: ['p'] },
          }),
        ]);
      // The service talks to its embedded PostgreSQL over the Unix socket in the data folder (client_addr is NULL for
      // socket connections); this test's own connections use TCP, which stays open for other tools.
      const { rows } = await db.pool.query<{ socket: number; tcp: number }>(
        `SELECT count(*) FILTER (WHERE client_addr IS NULL)::int AS socket, count(*) FILTER (WHERE pid = pg_backend_pid() AND client_addr IS NOT NULL)::int AS tcp
           FROM pg_stat_activity WHERE backend_type = 'client backend' AND datname = 'ledgerline'`,
      );
      expect(rows[0]).toEqual({ socket: expect.any(Number), tcp: 1 });
      expect(rows[0].socket).toBeGreaterThan(0);
      expect(fs.existsSync(path.join(dataDir, 'pg', `.s.PGSQL.${env.LEDGER_EMBEDDED_PG_PORT}`))).toBe(true);
      await db.close();
      expect((await callJson(first.url, 'GET', '/v2/state/ledger-end', token)).json).toEqual({ offset: 3 });
    } finally {
      // Graceful stop: exit 0 and the embedded PostgreSQL is stopped too.
      expect(await first.stop('SIGTERM')).toBe(0);
    }
    expect(postmasterPid()).toBeNull();

    const second = await startServerProcess(env);
    expect((await callJson(second.url, 'GET', '/v2/users/persist-me', token)).status).toBe(200);
    expect((await callJson(second.url, 'GET', '/v2/state/ledger-end', token)).json).toEqual({ offset: 3 });
    const participant = ledgerctl('participant-id');

    // SIGKILL Node: its postmaster survives as an orphan…
    const orphan = postmasterPid();
    expect(orphan).not.toBeNull();
    expect(await second.stop('SIGKILL')).toBe('SIGKILL');
    expect(alive(orphan!)).toBe(true);

    // …and the next start stops it and starts afresh, with every write intact.
    const third = await startServerProcess(env);
    const postmaster = postmasterPid();
    try {
      expect(alive(orphan!)).toBe(false);
      expect(postmaster).not.toBe(orphan);
      expect((await callJson(third.url, 'GET', '/v2/users/persist-me', token)).status).toBe(200);
      expect((await callJson(third.url, 'GET', '/v2/state/ledger-end', token)).json).toEqual({ offset: 3 });
      expect((await callJson(third.url, 'POST', '/v2/users', token, { user: { id: 'after-kill' } })).status).toBe(200);
      expect(ledgerctl('participant-id')).toBe(participant);
    } finally {
      // SIGKILL the whole stack: Node and its postmaster at once (postmaster.pid stays, naming a dead or zombie process).
      process.kill(postmaster!, 'SIGKILL');
      expect(await third.stop('SIGKILL')).toBe('SIGKILL');
    }
    expect(postmasterPid()).toBe(postmaster);

    // The next start works the first time, with every write intact.
    const fourth = await startServerProcess(env);
    try {
      expect(postmasterPid()).not.toBe(postmaster);
      expect((await callJson(fourth.url, 'GET', '/v2/users/after-kill', token)).status).toBe(200);
      expect((await callJson(fourth.url, 'GET', '/v2/state/ledger-end', token)).json).toEqual({ offset: 3 });
    } finally {
      expect(await fourth.stop('SIGTERM')).toBe(0);
    }
    expect(postmasterPid()).toBeNull();
  });
});
