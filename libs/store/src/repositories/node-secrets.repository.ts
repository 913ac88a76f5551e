import type { Kysely } from 'kysely';
import type { DB } from '../schema';

/** Node-local secrets (participant key, generated JWT secret): created once, never changed. */
export class NodeSecretsRepository {
  async get(db: Kysely<DB>, name: string): Promise<string | null> {
    const row = await db.selectFrom('node_secrets').select('value').where('name', '=', name).executeTakeFirst();
    return row?.value ?? null;
  }

  /** Returns the stored value, or stores `make()` if there is none. Concurrent callers all get the same winner. */
  async getOrCreate(db: Kysely<DB>, name: string, make: () => string): Promise<string> {
    const existing = await this.get(db, name);
    if (existing !== null) return existing;
    await db
      .insertInto('node_secrets')
      .values({ name, value: make() })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const row = await db.selectFrom('node_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
    return row.value;
  }
}
