import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { inject } from 'vitest';
import { openDatabase, type Database } from '@ledgerline/store';
import { withDatabase } from '../../testkit/database';

/** A fresh, migrated database for one test file (a clone of the run's template). */
export async function createTestDatabase(): Promise<{ url: string; name: string }> {
  const name = `ll_t_${inject('runId')}_${randomBytes(4).toString('hex')}`;
  const client = new Client({ connectionString: inject('adminUrl') });
  await client.connect();
  try {
    // Cloning needs the template to have no other session; parallel files may collide briefly, so retry.
    for (let attempt = 0; ; attempt++) {
      try {
        await client.query(`CREATE DATABASE ${name} TEMPLATE ${inject('templateDb')}`);
        break;
      } catch (e) {
        if (attempt > 100 || !/being accessed by other users/.test((e as Error).message)) throw e;
        await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
      }
    }
  } finally {
    await client.end();
  }
  return { url: withDatabase(inject('adminUrl'), name), name };
}

export async function openTestDatabase(): Promise<Database & { url: string }> {
  const { url } = await createTestDatabase();
  return Object.assign(openDatabase(url, { max: 20 }), { url });
}
