import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { migrate, openDatabase, ReadDatabase, type Database } from '@ledgerline/store';
import { call, MixedLoad, setupLoad, verifyLedger, type LoadSetup } from '../../support/fault-load';
import { TEST_JWT_SECRET } from '../../support/ledger';
import { waitFor } from '../../support/wait-for';
import { replicationAvailable, startReplicatedPair, type ReplicatedPair } from '../../../testkit/replication';
import { ensureBuilt, scopeToken, startServerProcess, type ServerProcess } from '../../support/server-process';

/**
 * A primary and a hot standby of our own (initdb, pg_basebackup -R), and one service instance that writes to the
 * primary and reads from the standby (LEDGER_READ_DATABASE_URL), with both hosts in LEDGER_DATABASE_HOSTS:
 * - a WebSocket tail on it gets every offset in order under a mixed write load;
 * - with replay paused on the standby, a read at a just-written offset waits for the bound and is answered by the
 *   primary, a lookup by id is answered at once (retried on the primary), and once replay resumes within the bound the
 *   waiting read is answered; the lag metric shows the standby behind;
 * - with the standby stopped, reads fall back to the primary and writes go on;
 * - the primary is made synchronous, then stopped as if it crashed, and the standby promoted: requests meanwhile get 503,
 *   the same process writes again on the promoted host without a restart, and every acknowledged write is there
 *   exactly once with contiguous offsets.
 */
const RUN = replicationAvailable('read replicas and failover (test/hardening/store/read-replicas.test.ts)');
const WAIT_MS = 3000;

function openTail(url: string, token: string, beginExclusive: number) {
  const order: number[] = [];
  const ws = new WebSocket(url.replace(/^http/, 'ws') + '/v2/updates/flats', ['daml.ws.auth', `jwt.token.${token}`]);
  const opened = new Promise<void>((resolve, reject) => {
    ws.on('open', () => {
      ws.send(JSON.stringify({ beginExclusive, filter: { filtersForAnyParty: {} } }));
      resolve();
    });
    ws.on('error', reject);
  });
  let closedWith: number | null = null;
  ws.on('close', (code) => (closedWith = code));
  ws.on('message', (data) => {
    const m = JSON.parse(data.toString());
    const [kind, body] = Object.entries(m.update ?? {})[0] ?? [];
    if (kind && kind !== 'OffsetCheckpoint') order.push((body as any).value.offset as number);
  });
  return {
    opened,
    order,
    closed: () => closedWith,
    async waitFor(offset: number, timeoutMs = 20_000) {
      const until = performance.now() + timeoutMs;
      while (!order.includes(offset) && performance.now() < until && closedWith === null)
        await new Promise((r) => setTimeout(r, 10));
      return order.includes(offset);
    },
    close: () => ws.close(),
  };
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function standbyCaughtUp(pair: ReplicatedPair): Promise<void> {
  const until = Date.now() + 30_000;
  for (;;) {
    const [p] = await pair.primary.query<{ o: string }>('SELECT ledger_offset AS o FROM ledger_head', pair.database);
    const [s] = await pair.standby
      .query<{ o: string }>('SELECT ledger_offset AS o FROM ledger_head', pair.database)
      .catch(() => [{ o: '-1' }]);
    if (p.o === s.o) return;
    if (Date.now() > until) throw new Error(`standby stuck at ${s.o}, primary at ${p.o}`);
    await sleep(50);
  }
}

describe.runIf(RUN)('read replicas and failover on a real primary and hot standby', () => {
  let pair: ReplicatedPair;
  let server: ServerProcess | undefined;
  let database: Database | undefined;
  beforeAll(async () => {
    ensureBuilt();
    pair = await startReplicatedPair();
  }, 120_000);
  afterAll(async () => {
    await server?.stop('SIGKILL');
    await database?.close();
    pair?.remove();
  });

  it('a read cancelled by a conflict with recovery on the replica is run again', { timeout: 60_000 }, async () => {
    const { primary, standby } = pair;
    await primary.query(
      'CREATE TABLE conflict_probe (n int); INSERT INTO conflict_probe SELECT generate_series(1, 1000)',
      pair.database,
    );
    // No grace for queries that block replay: the conflict cancels the read at once.
    await standby.query('ALTER SYSTEM SET max_standby_streaming_delay = 0');
    await standby.query('SELECT pg_reload_conf()');
    const primaryDb = openDatabase(primary.url(pair.database), { max: 2 });
    await migrate(primaryDb.pool);
    const reads = new ReadDatabase(primaryDb.db, [standby.url(pair.database)]);
    try {
      reads.start();
      for (let i = 0; !reads.replicas[0].up || reads.replicas[0].head < 0; i++) {
        if (i > 200) throw new Error('the follower never read the replica');
        await sleep(25);
      }
      const attempts: string[] = [];
      const result = await reads.at(0, async (db) => {
        attempts.push('try');
        if (attempts.length === 1) {
          // The first try holds a snapshot on the standby while the primary deletes and vacuums the rows it sees.
          const slow = sql<{
            n: number;
            standby: boolean;
          }>`SELECT count(*) AS n, pg_is_in_recovery() AS standby FROM conflict_probe, pg_sleep(5)`.execute(db);
          // Its cancellation may arrive before it is awaited below (where the retry sees it): not an unhandled rejection.
          slow.catch(() => undefined);
          // Lets the slow query take its snapshot on the standby first (it signals nothing before it ends).
          await sleep(500);
          await primary.query('DELETE FROM conflict_probe', pair.database);
          await primary.query('VACUUM conflict_probe', pair.database);
          return (await slow).rows[0];
        }
        return (
          await sql<{
            n: number;
            standby: boolean;
          }>`SELECT count(*) AS n, pg_is_in_recovery() AS standby FROM conflict_probe`.execute(db)
        ).rows[0];
      });
      expect(attempts).toHaveLength(2);
      // the second try ran on the replica, after the deletion replayed
      expect(result).toEqual({ n: 0, standby: true });
    } finally {
      await reads.close();
      await primaryDb.close();
      await standby.query('ALTER SYSTEM RESET max_standby_streaming_delay');
      await standby.query('SELECT pg_reload_conf()');
    }
  });

  it(
    'tails from the replica, waits for it or falls back, survives its loss and a promotion',
    { timeout: 240_000 },
    async () => {
      const { primary, standby } = pair;
      server = await startServerProcess({
        DATABASE_URL: primary.url(pair.database),
        LEDGER_DATABASE_HOSTS: `127.0.0.1:${primary.port},127.0.0.1:${standby.port}`,
        LEDGER_READ_DATABASE_URL: standby.url(pair.database),
        LEDGER_READ_REPLICA_WAIT_MS: String(WAIT_MS),
        LEDGER_JWT_SECRET: TEST_JWT_SECRET,
        LEDGER_DB_POOL_SIZE: '6',
        // The mixed load reassigns between two synchronizers.
        LEDGER_SYNCHRONIZERS: 'global,secondary',
      });
      const a = server.url;
      database = openDatabase(primary.url(pair.database), { max: 2 });
      const setup: LoadSetup = await setupLoad(a, 6, 'rr');
      const admin = setup.adminToken;
      expect(
        (
          await call(a, 'POST', '/v2/users', admin, {
            user: { id: 'tail-reader', primaryParty: '' },
            rights: [{ kind: { CanReadAsAnyParty: { value: {} } } }],
          })
        ).status,
      ).toBe(200);
      const readerToken = await scopeToken('tail-reader', TEST_JWT_SECRET);
      const ledgerEnd = async () => (await call(a, 'GET', '/v2/state/ledger-end', admin)).json.offset as number;

      // 1. A tail on the replica-reading instance under mixed writes: every offset, in order, read from the standby.
      const standbyScans = async () =>
        Number(
          (
            await standby.query<{ n: string }>(
              "SELECT COALESCE(sum(COALESCE(idx_scan, 0) + COALESCE(seq_scan, 0)), 0) AS n FROM pg_stat_user_tables WHERE relname = 'ledger_updates'",
              pair.database,
            )
          )[0].n,
        );
      const scansBefore = await standbyScans();
      const begin = await ledgerEnd();
      const tail = openTail(a, readerToken, begin);
      await tail.opened;
      const load = new MixedLoad(setup);
      load.round = 1;
      let running = load.run([a]);
      // A load window: 20 acknowledged writes that took an offset.
      await load.acknowledged(20, { which: (x) => x.round === 1 && x.offset !== undefined });
      load.stop();
      await running;
      expect(Object.fromEntries(load.failures)).toEqual({});
      const { offsets: end1 } = await verifyLedger(database.db, load, setup);
      expect(end1).toBeGreaterThan(begin + 10);
      expect(await tail.waitFor(end1)).toBe(true);
      expect(tail.order).toEqual(range(begin + 1, end1));
      // The standby's backends publish their table statistics when idle, at most once a second and within 10 s
      // (PostgreSQL's cumulative statistics), so the scans appear after the reads, not with them.
      await waitFor(async () => (await standbyScans()) > scansBefore, {
        timeoutMs: 20_000,
        intervalMs: 200,
        message: 'scans of ledger_updates on the standby',
      });

      // 2. Replay paused: the replica stays behind.
      await standbyCaughtUp(pair);
      await standby.query('SELECT pg_wal_replay_pause()');
      const party = await call(a, 'POST', '/v2/parties', admin, {
        partyIdHint: 'while-paused',
        identityProviderId: '',
        synchronizerId: setup.syncs[0],
      });
      expect(party.status).toBe(200);
      const written = await ledgerEnd();
      const [{ o: standbyEnd }] = await standby.query<{ o: string }>(
        'SELECT ledger_offset AS o FROM ledger_head',
        pair.database,
      );
      expect(Number(standbyEnd)).toBeLessThan(written);
      const metrics = await (await fetch(`${a}/metrics`)).text();
      expect(
        Number(/ledgerline_read_replica_lag_offsets\{replica="[^"]+"\} (-?\d+)/.exec(metrics)?.[1]),
      ).toBeGreaterThanOrEqual(written - Number(standbyEnd));
      // the ledger end answered is the primary's, the tail (its pages read where they can) delivers the new offset
      expect(await tail.waitFor(written, WAIT_MS + 10_000)).toBe(true);
      // a read at the just-written offset waits the bound, then the primary answers it
      const listAt = () =>
        call(a, 'POST', '/v2/updates/flats', readerToken, {
          beginExclusive: written - 1,
          endInclusive: written,
          filter: { filtersForAnyParty: {} },
        });
      let t0 = performance.now();
      const fellBack = await listAt();
      const waited = performance.now() - t0;
      expect(fellBack.status).toBe(200);
      expect(fellBack.json.map((u: any) => Object.values(u.update)[0] as any).map((v: any) => v.value.offset)).toEqual([
        written,
      ]);
      expect(waited).toBeGreaterThanOrEqual(WAIT_MS - 50);
      // lookups by offset and by id that miss on the replica are retried on the primary
      const format = { includeTopologyEvents: { includeParticipantAuthorizationEvents: { parties: [] } } };
      const byOffset = await call(a, 'POST', '/v2/updates/update-by-offset', readerToken, {
        offset: written,
        updateFormat: format,
      });
      expect(byOffset.status, JSON.stringify(byOffset.json)).toBe(200);
      const updateId = (Object.values(byOffset.json.update)[0] as any).value.updateId as string;
      const byId = await call(a, 'POST', '/v2/updates/update-by-id', readerToken, { updateId, updateFormat: format });
      expect(byId.status, JSON.stringify(byId.json)).toBe(200);
      expect((Object.values(byId.json.update)[0] as any).value.offset).toBe(written);
      // replay resumes within the bound: the waiting read is answered (by the replica once it has replayed the offset)
      t0 = performance.now();
      const pending = listAt();
      // Lets the read reach its wait while replay is paused (a long poll signals nothing).
      await sleep(200);
      await standby.query('SELECT pg_wal_replay_resume()');
      const resumed = await pending;
      expect(resumed.status).toBe(200);
      expect(resumed.json).toHaveLength(1);
      expect(performance.now() - t0).toBeLessThan(WAIT_MS);

      // 3. Standby stopped: reads fall back to the primary, writes go on.
      standby.stop('fast');
      const mark = load.acks.length;
      load.round = 2;
      running = load.run([a]);
      // A load window with the standby stopped: 20 acknowledged writes.
      await load.acknowledged(20, { since: mark });
      load.stop();
      await running;
      expect(Object.fromEntries(load.failures)).toEqual({});
      expect(load.acks.length).toBeGreaterThan(mark);
      const { offsets: end3 } = await verifyLedger(database.db, load, setup);
      expect(await tail.waitFor(end3)).toBe(true);
      expect(tail.order).toEqual(range(begin + 1, end3));
      const list = await call(a, 'POST', '/v2/updates/flats', readerToken, {
        beginExclusive: end3 - 5,
        endInclusive: end3,
        filter: { filtersForAnyParty: {} },
      });
      expect(list.status).toBe(200);
      expect(list.json).toHaveLength(5);
      tail.close();
      standby.start();
      await standbyCaughtUp(pair);

      // 4. Synchronous replication, then the primary is lost and the standby promoted; the instance follows the host list.
      await primary.query("ALTER SYSTEM SET synchronous_standby_names = '*'");
      await primary.query('SELECT pg_reload_conf()');
      for (const until = Date.now() + 20_000; ;) {
        const rows = await primary.query<{ s: string }>('SELECT sync_state AS s FROM pg_stat_replication');
        if (rows.some((r) => r.s === 'sync')) break;
        if (Date.now() > until) throw new Error('the standby never became synchronous');
        await sleep(50);
      }
      await database.close();
      database = undefined;
      load.round = 3;
      const beforeSwitch = load.acks.length;
      running = load.run([a], { onNetworkError: 'retry' });
      // A load window (20 acknowledged writes), then the primary is lost mid-load and a request is made while it is gone.
      await load.acknowledged(20, { since: beforeSwitch });
      primary.stop('immediate');
      await sleep(300);
      const during = await call(a, 'GET', '/v2/users', admin);
      standby.promote();
      let recovered = false;
      for (const until = Date.now() + 30_000; Date.now() < until; await sleep(100)) {
        const r = await call(a, 'POST', '/v2/users', admin, {
          user: { id: `after-switch-${Date.now()}`, primaryParty: '' },
        });
        if (r.status === 200) {
          recovered = true;
          break;
        }
        expect(r.status).toBe(503);
      }
      expect(recovered).toBe(true);
      const afterSwitch = load.acks.length;
      // A load window after the switch: 20 acknowledged writes.
      await load.acknowledged(20, { since: afterSwitch });
      load.stop();
      await running;
      expect([200, 503]).toContain(during.status);
      for (const key of load.failures.keys()) expect(key).toBe('503 SERVICE_NOT_RUNNING');
      expect(load.acks.length).toBeGreaterThan(afterSwitch);
      expect(afterSwitch).toBeGreaterThan(beforeSwitch);
      database = openDatabase(standby.url(pair.database), { max: 2 });
      const { offsets: end4 } = await verifyLedger(database.db, load, setup);
      expect(end4).toBeGreaterThan(end3);
      // a fresh tail on the same process reads the whole ledger from the promoted host
      const again = openTail(a, readerToken, begin);
      await again.opened;
      expect(await again.waitFor(end4)).toBe(true);
      expect(again.order).toEqual(range(begin + 1, end4));
      again.close();
      console.log(
        `[read-replicas] tail ${begin + 1}..${end1} in order; paused replica: read waited ${waited.toFixed(0)} ms then the primary answered; ` +
          `standby stopped: ${end3 - end1} offsets written; failover: ${load.failures.get('503 SERVICE_NOT_RUNNING') ?? 0} answers 503, ledger end ${end4}, nothing lost`,
      );
    },
  );
});
