import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '@ledgerline/store';
import { createTestDatabase } from '../../support/database';
import { call, MixedLoad, setupLoad, verifyLedger, type LoadSetup } from '../../support/fault-load';
import { TEST_JWT_SECRET } from '../../support/ledger';
import { ensureBuilt, scopeToken, startServerProcess, type ServerProcess } from '../../support/server-process';

/**
 * Two service instances on one database, no proxy. A mixed load goes to both at once; the log keeps one
 * contiguous offset sequence (the ledger_head row lock serialises the writers, LISTEN/NOTIFY wakes the other instance's
 * readers). A WebSocket tail opened on instance A sees every update, in order, including those written through B — the
 * delay from B's acknowledgement to A's tail delivering the update is printed. Then B is SIGKILLed in the middle of the
 * load: its clients move to A, which keeps writing with no gap in the offsets, and A's tail carries on.
 */
beforeAll(() => ensureBuilt());

/** An open-ended WebSocket flats tail over every party: arrival time per offset. */
function openTail(url: string, token: string, beginExclusive: number) {
  const arrivals = new Map<number, number>();
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
    if (!kind || kind === 'OffsetCheckpoint') return;
    const offset = (body as any).value.offset as number;
    order.push(offset);
    arrivals.set(offset, performance.now());
  });
  return {
    opened,
    arrivals,
    order,
    closed: () => closedWith,
    async waitFor(offset: number, timeoutMs = 15_000) {
      const until = performance.now() + timeoutMs;
      while (!arrivals.has(offset) && performance.now() < until && closedWith === null)
        await new Promise((r) => setTimeout(r, 10));
      return arrivals.has(offset);
    },
    close: () => ws.close(),
  };
}

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

describe('two instances on one database', () => {
  let database: Database | undefined;
  const servers: ServerProcess[] = [];
  afterAll(async () => {
    for (const s of servers) await s.stop('SIGKILL');
    await database?.close();
  });

  it(
    'writes through both keep one contiguous offset sequence; a tail on A sees B’s commits; A keeps writing after B is killed',
    { timeout: 90_000 },
    async () => {
      const { url } = await createTestDatabase();
      // The mixed load reassigns: a second synchronizer.
      const env = {
        DATABASE_URL: url,
        LEDGER_JWT_SECRET: TEST_JWT_SECRET,
        LEDGER_DB_POOL_SIZE: '6',
        LEDGER_SYNCHRONIZERS: 'global,secondary',
      };
      const a = await startServerProcess(env);
      servers.push(a);
      const b = await startServerProcess(env);
      servers.push(b);
      database = openDatabase(url, { max: 2 });

      const setup: LoadSetup = await setupLoad(a.url, 8, 'two');
      expect(
        (
          await call(a.url, 'POST', '/v2/users', setup.adminToken, {
            user: { id: 'tail-reader', primaryParty: '' },
            rights: [{ kind: { CanReadAsAnyParty: { value: {} } } }],
          })
        ).status,
      ).toBe(200);
      const begin = (await call(a.url, 'GET', '/v2/state/ledger-end', setup.adminToken)).json.offset as number;
      const tail = openTail(a.url, await scopeToken('tail-reader', TEST_JWT_SECRET), begin);
      await tail.opened;

      // Phase 1: both instances take writes (workers alternate between them).
      const load = new MixedLoad(setup);
      const urls = [a.url, b.url];
      load.round = 1;
      let running = load.run(urls, { onNetworkError: 'retry' });
      // A load window: until each instance has acknowledged 20 writes that took an offset.
      for (const url of urls) await load.acknowledged(20, { which: (x) => x.url === url && x.offset !== undefined });
      load.stop();
      await running;
      expect(Object.fromEntries(load.failures)).toEqual({});
      const viaB = load.acks.filter((x) => x.url === b.url && x.offset !== undefined);
      const viaA = load.acks.filter((x) => x.url === a.url && x.offset !== undefined);
      expect(viaA.length).toBeGreaterThan(0);
      expect(viaB.length).toBeGreaterThan(0);
      const { offsets: endPhase1 } = await verifyLedger(database.db, load, setup);
      // The tail on A delivers every update of phase 1, B's included, in offset order.
      expect(await tail.waitFor(endPhase1)).toBe(true);
      expect(tail.order).toEqual(Array.from({ length: endPhase1 - begin }, (_, i) => begin + i + 1));
      const delays = viaB.map((x) => tail.arrivals.get(x.offset!)! - x.at);

      // Phase 2: B is SIGKILLed mid-load; its clients move to A.
      load.round = 2;
      const mark = load.acks.length;
      running = load.run(urls, { onNetworkError: 'retry' });
      // Mid-load: after a random number of B's acknowledged writes in this round.
      await load.acknowledged(1 + Math.floor(Math.random() * 20), { since: mark, which: (x) => x.url === b.url });
      b.proc.kill('SIGKILL');
      expect(await b.exited).toBe('SIGKILL');
      urls.splice(1, 1);
      const killedAt = load.acks.length;
      // A load window after the kill: the clients move to A and keep writing, 20 acknowledged writes.
      await load.acknowledged(20, { since: killedAt });
      load.stop();
      await running;
      const afterKill = load.acks.slice(killedAt);
      expect(afterKill.length).toBeGreaterThan(0);
      expect(afterKill.every((x) => x.url === a.url)).toBe(true);
      expect(load.acks.slice(mark).some((x) => x.url === b.url)).toBe(true);
      // Nothing but the kill itself interrupted the load.
      expect(Object.fromEntries(load.failures)).toEqual({});

      const { offsets: end } = await verifyLedger(database.db, load, setup);
      expect(await tail.waitFor(end)).toBe(true);
      expect(tail.order).toEqual(Array.from({ length: end - begin }, (_, i) => begin + i + 1));
      expect(tail.closed()).toBeNull();
      tail.close();

      // A still writes; then the projections equal a replay.
      const after = await call(a.url, 'POST', '/v2/users', setup.adminToken, {
        user: { id: 'after-kill', primaryParty: '' },
      });
      expect(after.status).toBe(200);
      expect(await a.stop()).toBe(0);
      servers.length = 0;
      await verifyLedger(database.db, load, setup, { rebuild: true });
      console.log(
        `[two-instances] phase 1: ${viaA.length} updates via A, ${viaB.length} via B, offsets ${begin + 1}..${endPhase1} contiguous; ` +
          `tail on A after B's acknowledgement: median ${percentile(delays, 50).toFixed(1)} ms, p99 ${percentile(delays, 99).toFixed(1)} ms, max ${Math.max(...delays).toFixed(1)} ms; ` +
          `after killing B: ${afterKill.length} writes through A, ledger end ${end}, no gap`,
      );
    },
  );
});
