import { randomBytes } from 'node:crypto';
import { migrate, openDatabase } from '@ledgerline/store';
import { adminQuery, withDatabase } from '../../testkit/database';

/**
 * Benchmarks run against a real PostgreSQL: BENCH_DATABASE_URL if set (any database on the server; we only use it to
 * create and drop our own), else the local server of these machines and CI, postgres://postgres@127.0.0.1:5432/postgres.
 */
export function benchAdminUrl(): string {
  return process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

export interface BenchDatabase {
  /** Connection string of the throwaway database. */
  url: string;
  name: string;
  /** Drops the database (closes any remaining session). */
  drop(): Promise<void>;
}

/** Creates a throwaway database `ll_bench_<label>_<random>`; with `migrate: true` it gets every migration. */
export async function createBenchDatabase(opts: { label?: string; migrate?: boolean } = {}): Promise<BenchDatabase> {
  const admin = benchAdminUrl();
  const name = `ll_bench_${(opts.label ?? 'db').replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
  await adminQuery(admin, `CREATE DATABASE ${name}`);
  const url = withDatabase(admin, name);
  if (opts.migrate) {
    const db = openDatabase(url, { max: 1 });
    try {
      await migrate(db.pool);
    } finally {
      await db.close();
    }
  }
  return {
    url,
    name,
    drop: () => adminQuery(admin, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/** Creates a database, hands it to `fn`, and drops it afterwards whatever happens. */
export async function withBenchDatabase<T>(
  opts: { label?: string; migrate?: boolean },
  fn: (db: BenchDatabase) => Promise<T>,
): Promise<T> {
  const db = await createBenchDatabase(opts);
  try {
    return await fn(db);
  } finally {
    await db.drop().catch((e) => console.error(`could not drop ${db.name}: ${(e as Error).message}`));
  }
}
