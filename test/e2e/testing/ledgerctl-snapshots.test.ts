import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../support/database';
import { TEST_JWT_SECRET } from '../../support/ledger';
import {
  callJson,
  ensureBuilt,
  freePort,
  LEDGERCTL_MAIN,
  ROOT,
  scopeToken,
  startServerProcess,
} from '../../support/server-process';

/** ledgerctl's snapshot commands: through a running server (--server) and on the database directly, on a configured and on the embedded PostgreSQL. */

function ledgerctl(
  env: Record<string, string>,
  ...args: string[]
): { status: number | null; out: any; stderr: string } {
  const r = spawnSync(process.execPath, [LEDGERCTL_MAIN, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
  });
  let out: unknown = r.stdout.trim();
  try {
    out = JSON.parse(r.stdout);
  } catch {
    /* not JSON */
  }
  return { status: r.status, out, stderr: r.stderr };
}

beforeAll(() => ensureBuilt());

describe('ledgerctl snapshots on a configured PostgreSQL', () => {
  let env: Record<string, string>;
  beforeAll(async () => {
    env = {
      DATABASE_URL: (await createTestDatabase()).url,
      LEDGER_JWT_SECRET: TEST_JWT_SECRET,
      LEDGER_LOG_LEVEL: 'silent',
    };
  });

  it('snapshot and restore through a running server, then reset and restore on the stopped ledger', async () => {
    const server = await startServerProcess(env);
    const token = await scopeToken();
    const parties = async () =>
      (await callJson(server.url, 'GET', '/v2/parties', token)).json.partyDetails.map(
        (p: { party: string }) => p.party.split('::')[0],
      );
    const sync = (await callJson(server.url, 'GET', '/v2/state/connected-synchronizers', token)).json
      .connectedSynchronizers[0].synchronizerId;
    const allocate = (hint: string) =>
      callJson(server.url, 'POST', '/v2/parties', token, { partyIdHint: hint, synchronizerId: sync });
    try {
      expect((await allocate('first')).status).toBe(200);
      const snap = ledgerctl(env, 'snapshot', 's1', '--server', server.url);
      expect(snap.status, snap.stderr).toBe(0);
      expect(snap.out).toMatchObject({ name: 's1' });
      expect((await allocate('second')).status).toBe(200);
      expect(await parties()).toEqual(['first', 'second']);
      const restore = ledgerctl(env, 'restore', 's1', '--server', server.url);
      expect(restore.status, restore.stderr).toBe(0);
      expect(restore.out).toEqual({ restored: 's1', ledgerEnd: snap.out.ledgerEnd });
      expect(await parties()).toEqual(['first']);
      const unknown = ledgerctl(env, 'restore', 'nope', '--server', server.url);
      expect(unknown.status).toBe(1);
      expect(unknown.stderr).toContain('SNAPSHOT_NOT_FOUND');
    } finally {
      await server.stop();
    }
    const list = ledgerctl(env, 'snapshots');
    expect(list.status, list.stderr).toBe(0);
    expect(list.out.snapshots.map((s: { name: string }) => s.name)).toEqual(['s1']);
    const reset = ledgerctl(env, 'reset');
    expect(reset.status, reset.stderr).toBe(0);
    expect(reset.out).toEqual({ ledgerEnd: 0 });
    const back = ledgerctl(env, 'reset', '--snapshot', 's1');
    expect(back.status, back.stderr).toBe(0);
    expect(back.out).toEqual({ ledgerEnd: list.out.snapshots[0].ledgerEnd });
    const fork = ledgerctl(env, 'fork', 's1', 'f1');
    expect(fork.status, fork.stderr).toBe(0);
    expect(ledgerctl(env, 'forks').out.forks.map((f: { name: string }) => f.name)).toEqual(['f1']);
    expect(ledgerctl(env, 'fork-delete', 'f1').status).toBe(0);
    expect(ledgerctl(env, 'snapshot-delete', 's1').status).toBe(0);
    expect(ledgerctl(env, 'snapshot-delete', 's1').status).toBe(1);
    expect(ledgerctl(env, 'restore').status).toBe(64);
  });
});

describe('ledgerctl snapshots on the embedded PostgreSQL', () => {
  let dir: string;
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('snapshot, reset to empty and restore', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'll-snap-'));
    const env = { LEDGER_DATA_DIR: dir, LEDGER_EMBEDDED_PG_PORT: String(await freePort()), LEDGER_LOG_LEVEL: 'silent' };
    const before = ledgerctl(env, 'participant-id').out;
    expect(before).toMatch(/^participant1::1220[0-9a-f]{64}$/);
    const snap = ledgerctl(env, 'snapshot', 'e1');
    expect(snap.status, snap.stderr).toBe(0);
    expect(ledgerctl(env, 'snapshots').out.snapshots.map((s: { name: string }) => s.name)).toEqual(['e1']);
    const reset = ledgerctl(env, 'reset');
    expect(reset.status, reset.stderr).toBe(0);
    expect(ledgerctl(env, 'participant-id').out).toBe(before);
    const restore = ledgerctl(env, 'restore', 'e1');
    expect(restore.status, restore.stderr).toBe(0);
    expect(restore.out).toEqual({ restored: 'e1', ledgerEnd: snap.out.ledgerEnd });
    // The participant id survives both (its key is in the database, and reset keeps it).
    const id = ledgerctl(env, 'participant-id');
    expect(id.status, id.stderr).toBe(0);
    expect(id.out).toBe(before);
  }, 120_000);
});
