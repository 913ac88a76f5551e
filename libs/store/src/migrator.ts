import fs from 'node:fs';
import path from 'node:path';
import type { Pool } from 'pg';

/** Advisory-lock key shared by every instance: two instances starting at once migrate one after the other. */
const MIGRATION_LOCK = 72_517_001;

export interface MigrationResult {
  applied: string[];
}

/** Applies the `NNNN_name.sql` files of `dir` that are not yet recorded, in name order, each in its own transaction. */
export async function migrate(pool: Pool, dir = findMigrationsDir()): Promise<MigrationResult> {
  const files = fs
    .readdirSync(dir)
    .filter((f) => /^\d{4}_.+\.sql$/.test(f))
    .sort();
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const done = new Set(
      (await client.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((r) => r.name),
    );
    for (const file of files) {
      if (done.has(file)) continue;
      const sqlText = fs.readFileSync(path.join(dir, file), 'utf8');
      await client.query('BEGIN');
      try {
        await client.query(sqlText);
        await client.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
        await client.query('COMMIT');
        applied.push(file);
      } catch (e) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${file} failed: ${(e as Error).message}`, { cause: e });
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    client.release();
  }
  return { applied };
}

/** Whether every migration file is applied (readiness). */
export async function isMigrated(pool: Pool, dir = findMigrationsDir()): Promise<boolean> {
  const files = fs.readdirSync(dir).filter((f) => /^\d{4}_.+\.sql$/.test(f));
  try {
    const { rows } = await pool.query<{ n: string }>(
      'SELECT count(*)::text AS n FROM schema_migrations WHERE name = ANY($1)',
      [files],
    );
    return Number(rows[0].n) === files.length;
  } catch {
    return false;
  }
}

/** The repository's `migrations/` folder, whether running from sources or from `dist/`. */
export function findMigrationsDir(): string {
  let dir = __dirname;
  for (let i = 0; i < 6; i++) {
    const candidate = path.join(dir, 'migrations');
    if (fs.existsSync(candidate) && fs.existsSync(path.join(dir, 'package.json'))) return candidate;
    dir = path.dirname(dir);
  }
  throw new Error('migrations/ folder not found');
}
