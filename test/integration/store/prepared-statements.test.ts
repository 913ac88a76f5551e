import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { prepared, type Database } from '@ledgerline/store';
import { openTestDatabase } from '../../support/database';

/** Statements marked with `prepared(…)` run as named prepared statements of their connection; others do not. */
let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database.close();
});

describe('prepared statements', () => {
  it('a marked statement is prepared once per connection and gives the same answers; an unmarked one is not prepared', async () => {
    await database.db.transaction().execute(async (trx) => {
      const answers: number[] = [];
      for (const v of [1, 2, 3])
        answers.push((await prepared(sql<{ x: number }>`SELECT ${v}::int + 1 AS x`).execute(trx)).rows[0].x);
      expect(answers).toEqual([2, 3, 4]);
      await sql`SELECT ${5}::int AS unmarked`.execute(trx);
      const { rows } = await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(trx);
      const statements = rows.map((r) => r.statement);
      expect(statements.filter((s) => s.includes('::int + 1 AS x'))).toHaveLength(1);
      expect(statements.some((s) => s.includes('unmarked'))).toBe(false);
    });
  });
});
