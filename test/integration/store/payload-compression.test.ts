import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { EventStore, type Database } from '@ledgerline/store';
import { openTestDatabase } from '../../support/database';
import { foreignEvent } from '../../../testkit/foreign-event';

/** Migration 0010: large payloads are compressed with lz4 where the server has it (pglz cost a seventh of its CPU). */
let database: Database;
let lz4: boolean;
beforeAll(async () => {
  database = await openTestDatabase();
  // A server built without lz4 rejects it as a setting value.
  lz4 = await sql`SELECT set_config('default_toast_compression', 'lz4', true)`
    .execute(database.db)
    .then(() => true)
    .catch(() => false);
});
afterAll(async () => {
  await database.close();
});

describe('payload compression', () => {
  it('stores a transaction payload larger than the TOAST threshold lz4-compressed where the server supports lz4, and reads it back intact', async () => {
    const store = new EventStore(database.db, { participantId: 'p1' });
    // Repetitive JSON of ~6 kB: compressible, and its row is well above PostgreSQL's ~2 kB threshold.
    const data = {
      events: Array.from({ length: 40 }, (_, i) => ({
        CreatedEvent: { nodeId: i, contractId: `00${'ab'.repeat(33)}`, note: 'hello world' },
      })),
    };
    const [committed] = await store.append([
      foreignEvent({
        type: 'TestLargeUpdate',
        stream: 'test:large',
        data,
        update: { kind: 'Transaction', synchronizerId: 'sync::1220', parties: ['alice'] },
      }),
    ]);
    const { rows } = await sql<{ data_c: string | null; payload_c: string | null; payload: unknown }>`
      SELECT pg_column_compression(e.data) AS data_c, pg_column_compression(u.payload) AS payload_c, u.payload
      FROM event_log e JOIN ledger_updates u ON u.seq = e.seq WHERE e.seq = ${committed.seq}`.execute(database.db);
    expect(rows[0].payload).toEqual(data);
    const expected = lz4 ? 'lz4' : 'pglz';
    expect(rows[0].data_c).toBe(expected);
    expect(rows[0].payload_c).toBe(expected);
    await store.close();
  });

  it('sets lz4 on the large JSON columns where the server supports it (and the migration succeeds either way)', async () => {
    const { rows } = await sql<{ col: string; c: string }>`
      SELECT attrelid::regclass::text || '.' || attname AS col, attcompression::text AS c FROM pg_attribute
      WHERE (attrelid, attname) IN (('event_log'::regclass, 'data'), ('ledger_updates'::regclass, 'payload'), ('contracts'::regclass, 'created_event'))
      ORDER BY 1`.execute(database.db);
    expect(rows.map((r) => r.col)).toEqual(['contracts.created_event', 'event_log.data', 'ledger_updates.payload']);
    for (const r of rows) expect(r.c).toBe(lz4 ? 'l' : '');
  });
});
