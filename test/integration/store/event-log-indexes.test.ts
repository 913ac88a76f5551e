import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { type Database } from '@ledgerline/store';
import { openTestDatabase } from '../../support/database';

/** Migration 0011: the event log keeps only the indexes something reads it by (seq for replay, the ledger offset). */
let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database.close();
});

describe('event log indexes', () => {
  it('indexes the log by seq and by ledger offset only: no per-stream index for the writer to maintain', async () => {
    const { rows } = await sql<{ indexdef: string }>`
      SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'event_log' ORDER BY indexdef`.execute(
      database.db,
    );
    const columns = rows.map((r) => r.indexdef.replace(/^.*USING btree /, ''));
    expect(columns.sort()).toEqual(['(ledger_offset)', '(seq)']);
  });
});
