import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventStore, UsersRepository, type Database, type StoredUser } from '../../../libs/store/src';
import { decideCreateUser, userStream } from '../../../libs/domain/src';
import { openTestDatabase } from '../../support/database';

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database.close();
});

const users = new UsersRepository();
const stream = userStream('cached');

/** A work that reads the user through the writer cache and reports whether the loader ran (a cache miss). */
const readThroughCache = (store: EventStore) =>
  store.execute(async (tx) => {
    let loaded = false;
    const user = await tx.cached(stream, async () => {
      loaded = true;
      return users.get(tx.db, 'cached');
    });
    return { user: user as StoredUser | null, loaded };
  });

const update = (store: EventStore, version: number, fail = false) =>
  store.execute(async (tx) => {
    const current = (await users.get(tx.db, 'cached'))!;
    const user = { ...current, annotations: { v: String(version) } };
    await tx.append([{ type: 'UserUpdated', stream, data: { user, resourceVersion: version } }]);
    tx.remember(stream, { ...user, resourceVersion: version });
    if (fail) throw new Error('the work breaks after appending');
  });

describe('the writer state cache', () => {
  it('serves repeated reads without a round trip, and never serves what another writer or a failed batch changed', async () => {
    const a = new EventStore(database.db, { participantId: 'p' });
    const b = new EventStore(database.db, { participantId: 'p' });
    const record = { id: 'cached', primaryParty: '', isDeactivated: false, annotations: {}, identityProviderId: '' };
    await a.execute(async (tx) => tx.append(decideCreateUser(await users.state(tx.db, 'cached'), record, [])));

    expect((await readThroughCache(a)).loaded).toBe(true);
    const hit = await readThroughCache(a);
    expect(hit.loaded).toBe(false);
    expect(hit.user?.annotations).toEqual({});

    // Write-through: the state a work remembers is what the next work reads.
    await update(a, 1);
    const afterOwnWrite = await readThroughCache(a);
    expect(afterOwnWrite.loaded).toBe(false);
    expect(afterOwnWrite.user?.annotations).toEqual({ v: '1' });

    // Another writer (another instance) commits: this writer must read again.
    await update(b, 2);
    const afterOther = await readThroughCache(a);
    expect(afterOther.loaded).toBe(true);
    expect(afterOther.user?.annotations).toEqual({ v: '2' });

    // A batch that fails after remembering leaves nothing in the cache.
    await expect(update(a, 3, true)).rejects.toBeDefined();
    const afterFailure = await readThroughCache(a);
    expect(afterFailure.user?.annotations).toEqual({ v: '2' });
    expect((await users.get(database.db, 'cached'))?.annotations).toEqual({ v: '2' });
  });
});
