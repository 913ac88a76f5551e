import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { dumpProjections, openDatabase, rebuildProjections, type Database } from '@ledgerline/store';
import { createTestDatabase } from '../../support/database';
import { TEST_JWT_SECRET } from '../../support/ledger';
import { callJson, ensureBuilt, scopeToken, startServerProcess } from '../../support/server-process';

/**
 * Crash safety: SIGKILL the process that writes while it is under load; after a restart every acknowledged write is
 * there exactly once, no write is there in part, seq and offsets are contiguous, and the projections equal a replay.
 */
beforeAll(() => ensureBuilt());

async function checkLogInvariants(db: Database['db']): Promise<{ events: number; offsets: number }> {
  const seqs = (await sql<{ seq: number }>`SELECT seq FROM event_log ORDER BY seq`.execute(db)).rows.map((r) =>
    Number(r.seq),
  );
  expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  const offsets = (
    await sql<{
      o: number;
    }>`SELECT ledger_offset AS o FROM event_log WHERE ledger_offset IS NOT NULL ORDER BY seq`.execute(db)
  ).rows.map((r) => Number(r.o));
  expect(offsets).toEqual(offsets.map((_, i) => i + 1));
  const head = (
    await sql<{ seq: number; ledger_offset: number }>`SELECT seq, ledger_offset FROM ledger_head`.execute(db)
  ).rows[0];
  expect({ seq: Number(head.seq), offset: Number(head.ledger_offset) }).toEqual({
    seq: seqs.length,
    offset: offsets.length,
  });
  const served = (
    await sql<{ o: number }>`SELECT ledger_offset AS o FROM ledger_updates ORDER BY 1`.execute(db)
  ).rows.map((r) => Number(r.o));
  expect(served).toEqual(offsets);
  // Projections are exactly what a replay of the log gives.
  const live = await dumpProjections(db);
  await rebuildProjections(db);
  expect(await dumpProjections(db)).toEqual(live);
  return { events: seqs.length, offsets: offsets.length };
}

describe('crash safety', () => {
  let database: (Database & { url: string }) | undefined;
  afterAll(async () => {
    await database?.close();
  });

  it('server SIGKILLed during concurrent HTTP writes: after restart every acknowledged user is there once, nothing partial', async () => {
    const { url } = await createTestDatabase();
    const env = { DATABASE_URL: url, LEDGER_JWT_SECRET: TEST_JWT_SECRET };
    const first = await startServerProcess(env);
    const token = await scopeToken();
    const party = (i: number) => `p${i % 7}::1220` + 'ab'.repeat(32);
    const acked = new Set<string>();
    const attempted = new Set<string>();
    const statuses = new Map<string, number>();
    let killed = false;
    const killAfter = 150;
    await Promise.all(
      Array.from({ length: 16 }, async (_, w) => {
        for (let k = 0; !killed; k++) {
          const id = `crash-${w}-${k}`;
          attempted.add(id);
          try {
            const r = await callJson(first.url, 'POST', '/v2/users', token, {
              user: { id, primaryParty: party(k) },
              rights: [
                { kind: { CanActAs: { value: { party: party(k) } } } },
                { kind: { CanReadAs: { value: { party: party(k + 1) } } } },
              ],
            });
            statuses.set(id, r.status);
            if (r.status === 200) acked.add(id);
            if (acked.size >= killAfter && !killed) {
              killed = true;
              first.proc.kill('SIGKILL');
            }
          } catch {
            return; // connection refused/reset: the process is gone
          }
        }
      }),
    );
    expect(await first.exited).toBe('SIGKILL');
    // Before the kill, every answer was a success: the load itself is valid.
    expect([...statuses.values()].every((s) => s === 200)).toBe(true);
    expect(acked.size).toBeGreaterThanOrEqual(killAfter);

    const second = await startServerProcess(env);
    try {
      database = Object.assign(openDatabase(url, { max: 4 }), { url });
      const created = (
        await sql<{ stream: string; n: number }>`
        SELECT stream, count(*)::int AS n FROM event_log WHERE type = 'UserCreated' GROUP BY stream`.execute(
          database.db,
        )
      ).rows;
      const createdIds = new Map(created.map((r) => [r.stream.replace(/^user:/, ''), r.n]));
      for (const id of acked) expect(createdIds.get(id), id).toBe(1);
      // Whatever committed was attempted (no phantom writes), and is there exactly once.
      for (const [id, n] of createdIds) {
        if (id === 'participant_admin') continue;
        expect(attempted.has(id), id).toBe(true);
        expect(n).toBe(1);
      }
      // Nothing partial: each committed user has its row and both of its rights.
      const rows = (
        await sql<{ id: string; rights: number }>`
        SELECT u.id, (SELECT count(*)::int FROM user_rights r WHERE r.user_id = u.id) AS rights FROM users u WHERE u.id LIKE 'crash-%'`.execute(
          database.db,
        )
      ).rows;
      expect(rows.length).toBe(createdIds.size - 1);
      for (const r of rows) expect(r.rights, r.id).toBe(2);
      await checkLogInvariants(database.db);

      // The restarted server serves the acknowledged users and keeps writing.
      const some = [...acked].slice(0, 5);
      for (const id of some) expect((await callJson(second.url, 'GET', `/v2/users/${id}`, token)).status).toBe(200);
      expect((await callJson(second.url, 'POST', '/v2/users', token, { user: { id: 'after-crash' } })).status).toBe(
        200,
      );
    } finally {
      expect(await second.stop()).toBe(0);
    }
  });

  it('event-store process SIGKILLed during concurrent appends: acknowledged appends keep their offsets, multi-event appends are all or nothing', async () => {
    const { url } = await createTestDatabase();
    const child = spawn(process.execPath, [path.resolve(__dirname, '../../support/crash-appender.cjs')], {
      env: { ...process.env, DATABASE_URL: url, CONCURRENCY: '32' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const acks = new Map<string, { events: number; offset: number }>();
    let buffered = '';
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<string | number>((resolve) =>
      child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)),
    );
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        buffered += d.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop()!;
        for (const line of lines) {
          const [, stream, events, offset] = line.split(' ');
          acks.set(stream, { events: Number(events), offset: Number(offset) });
        }
        if (acks.size >= 600) resolve();
      });
      void exited.then((c) => reject(new Error(`appender exited early (${c}): ${stderr}`)));
    });
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    const db = openDatabase(url, { max: 4 });
    try {
      const rows = (
        await sql<{ stream: string; n: number; first: number }>`
        SELECT stream, count(*)::int AS n, min(ledger_offset)::int AS first FROM event_log GROUP BY stream`.execute(
          db.db,
        )
      ).rows;
      const inLog = new Map(rows.map((r) => [r.stream, r]));
      for (const [stream, ack] of acks) {
        const row = inLog.get(stream);
        expect(row, stream).toBeDefined();
        expect({ n: row!.n, first: row!.first }).toEqual({ n: ack.events, first: ack.offset });
      }
      // A three-event append is there with its three events or not at all.
      const partial = (
        await sql<{ stream: string }>`
        SELECT stream FROM event_log WHERE stream IN (SELECT stream FROM event_log WHERE type = 'CrashProbeNote')
        GROUP BY stream HAVING count(*) <> 3`.execute(db.db)
      ).rows;
      expect(partial).toEqual([]);
      const { offsets } = await checkLogInvariants(db.db);
      expect(offsets).toBeGreaterThanOrEqual(600);
    } finally {
      await db.close();
    }
  });
});
