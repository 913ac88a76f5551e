import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { COLUMN_TYPES, type Database } from '@ledgerline/store';
import { openTestDatabase } from '../../support/database';

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database.close();
});

/** The writer casts its rows to the column types declared in code: they must be the migrated database's. */
describe('COLUMN_TYPES', () => {
  it("names every column of the schema's tables with the type the migrations gave it", async () => {
    const { rows } = await sql<{ table: string; column: string; type: string }>`
      SELECT c.relname AS table, a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type
      FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
        AND c.relname = ANY(${Object.keys(COLUMN_TYPES)}::text[])`.execute(database.db);
    const fromCatalog: Record<string, Record<string, string>> = {};
    for (const r of rows) (fromCatalog[r.table] ??= {})[r.column] = r.type;
    expect(fromCatalog).toEqual(COLUMN_TYPES);
  });
});
