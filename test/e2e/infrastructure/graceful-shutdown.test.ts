import { beforeAll, describe, expect, it } from 'vitest';
import { Client } from 'pg';
import { createTestDatabase } from '../../support/database';
import { TEST_JWT_SECRET } from '../../support/ledger';
import { callJson, ensureBuilt, scopeToken, startServerProcess } from '../../support/server-process';

/**
 * SIGTERM while appends are in flight: the server stops accepting, lets them commit and answer, closes the pool and exits 0.
 * To hold appends in flight for sure, the test itself locks the `ledger_head` row (as another writer instance would) until
 * after the signal.
 */
beforeAll(() => ensureBuilt());

describe('graceful shutdown', () => {
  it('SIGTERM during in-flight appends: they complete with 200, then the process exits 0 and the writes are kept', async () => {
    const { url } = await createTestDatabase();
    const env = { DATABASE_URL: url, LEDGER_JWT_SECRET: TEST_JWT_SECRET };
    const server = await startServerProcess(env);
    const token = await scopeToken();

    const blocker = new Client({ connectionString: url });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query('SELECT 1 FROM ledger_head WHERE id = 1 FOR UPDATE');

    const ids = Array.from({ length: 20 }, (_, i) => `graceful-${i}`);
    const responses = ids.map((id) => callJson(server.url, 'POST', '/v2/users', token, { user: { id } }));
    // The server's writer is now waiting for our lock, with the other requests queued behind it.
    for (let i = 0; ; i++) {
      const { rows } = await blocker.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
      );
      if (rows[0].n > 0) break;
      if (i > 400) throw new Error('the server never waited for the ledger_head lock');
      await new Promise((r) => setTimeout(r, 25));
    }
    await new Promise((r) => setTimeout(r, 300)); // let the remaining requests reach the server
    server.proc.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    expect(server.proc.exitCode).toBeNull(); // still finishing its in-flight work
    await blocker.query('COMMIT');
    await blocker.end();

    const results = await Promise.all(responses);
    expect(results.map((r) => r.status)).toEqual(ids.map(() => 200));
    expect(await server.exited).toBe(0);


    const again = await startServerProcess(env);
    try {
      for (const id of ids) expect((await callJson(again.url, 'GET', `/v2/users/${id}`, token)).status, id).toBe(200);
    } finally {
      expect(await again.stop()).toBe(0);
    }
  });
});
