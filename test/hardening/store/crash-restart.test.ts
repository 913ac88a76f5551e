import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '@ledgerline/store';
import { createTestDatabase } from '../../support/database';
import { awaitServerBackendsGone, MixedLoad, setupLoad, verifyLedger, type LoadSetup } from '../../support/fault-load';
import { TEST_JWT_SECRET } from '../../support/ledger';
import { waitFor } from '../../support/wait-for';
import { ensureBuilt, startServerProcess, type ServerProcess } from '../../support/server-process';

/**
 * Crash and restart under a mixed load: executeAndWait creates/archives, reassignment round trips, PATCH party and
 * async command submissions run from 8 concurrent clients while the server process is SIGKILLed at a random moment,
 * KILLS times, each kill followed by a restart on the same database. While the server is down the database is checked
 * directly (verifyLedger): every acknowledged write is there exactly once (an async submission answered `{}` has exactly
 * one completion), nothing unacknowledged is half-present, seq and offsets are contiguous, and the projections equal a
 * replay of the log. After each restart, new acknowledged offsets are above the ledger end
 * the crash left. HARDENING_CRASH_KILLS (default 20) sets the count; `npm run test:hardening:long` runs 100.
 */
const KILLS = Number(process.env.HARDENING_CRASH_KILLS ?? 20);
const WORKERS = 8;

beforeAll(() => ensureBuilt());

describe('crash and restart under mixed load', () => {
  let database: Database | undefined;
  let server: ServerProcess | undefined;
  afterAll(async () => {
    await server?.stop('SIGKILL');
    await database?.close();
  });

  it(
    `survives ${KILLS} SIGKILLs at random moments: acknowledged writes exactly once, contiguous offsets, projections = replay`,
    { timeout: 60_000 + KILLS * 15_000 },
    async () => {
      const { url } = await createTestDatabase();
      // The mixed load reassigns: a second synchronizer.
      const env = {
        DATABASE_URL: url,
        LEDGER_JWT_SECRET: TEST_JWT_SECRET,
        LEDGER_DB_POOL_SIZE: '6',
        LEDGER_SYNCHRONIZERS: 'global,secondary',
      };
      // Its own application name: after each kill the check waits for the server's backends (application `ledgerline`) to go.
      database = openDatabase(url, { max: 2, applicationName: 'ledgerline-verify' });
      server = await startServerProcess(env);
      const setup: LoadSetup = await setupLoad(server.url, WORKERS, 'crash');
      const load = new MixedLoad(setup);
      let endAtCrash = 0;
      let survived = 0;
      let inFlightCommitted = 0;
      const perRound: number[] = [];

      // Warm-up without a kill: every kind of write succeeds (the load itself is valid) and contracts are held to move.
      const warm = load.run([server.url]);
      // A load window: until every kind of write has been acknowledged at least twice.
      await waitFor(
        () =>
          ['archive', 'assign', 'async', 'create', 'patch', 'unassign'].every(
            (kind) => load.acks.filter((a) => a.kind === kind).length >= 2,
          ),
        {
          timeoutMs: 60_000,
          message: 'every kind of write acknowledged in the warm-up',
        },
      );
      load.stop();
      await warm;
      expect(Object.fromEntries(load.failures)).toEqual({});
      expect([...new Set(load.acks.map((a) => a.kind))].sort()).toEqual([
        'archive',
        'assign',
        'async',
        'create',
        'patch',
        'unassign',
      ]);

      for (let round = 1; round <= KILLS; round++) {
        load.round = round;
        const before = load.acks.length;
        const running = load.run([server.url]);
        // A random moment in the first 0.8 s of load (commits are continuous from the first few ms on).
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 700));
        server.proc.kill('SIGKILL');
        expect(await server.exited).toBe('SIGKILL');
        const tKilled = performance.now();
        await running; // every worker ends on its network error
        const tDrained = performance.now();
        perRound.push(load.acks.length - before);

        // The database as the crash left it, once the dead server's backends have finished (a COMMIT it sent may still land).
        await awaitServerBackendsGone(database.db);
        const { offsets, committedUnacknowledged } = await verifyLedger(database.db, load, setup, { rebuild: true });
        inFlightCommitted = committedUnacknowledged;
        for (const a of load.acks.filter((x) => x.round === round && x.offset !== undefined))
          expect(a.offset!).toBeGreaterThan(endAtCrash);
        expect(offsets).toBeGreaterThanOrEqual(endAtCrash);
        endAtCrash = offsets;
        const tVerified = performance.now();

        server = await startServerProcess(env);
        await load.resync(database.db);
        survived++;
        if (process.env.HARDENING_DEBUG)
          console.log(
            `round ${round}: drain ${(tDrained - tKilled).toFixed(0)} ms, verify ${(tVerified - tDrained).toFixed(0)} ms, restart ${(performance.now() - tVerified).toFixed(0)} ms`,
          );
      }

      // Whatever answered before a kill answered 200: the load itself is valid, only the crashes interrupt it.
      expect(Object.fromEntries(load.failures)).toEqual({});
      expect(survived).toBe(KILLS);
      // Acknowledged offsets are all distinct.
      const acked = load.acks.filter((a) => a.offset !== undefined).map((a) => a.offset!);
      expect(new Set(acked).size).toBe(acked.length);

      // The last restart serves and keeps writing.
      load.round = KILLS + 1;
      const running = load.run([server.url]);
      // A load window, as in the warm-up.
      await new Promise((r) => setTimeout(r, 300));
      load.stop();
      await running;
      expect(load.acks.some((a) => a.round === KILLS + 1)).toBe(true);
      expect(await server.stop()).toBe(0);
      server = undefined;
      await verifyLedger(database.db, load, setup, { rebuild: true });
      console.log(
        `[crash-restart] kills survived: ${survived}; acknowledged writes: ${load.acks.length} (${perRound.join(', ')} per round); ledger end ${endAtCrash}; writes committed but cut off before their answer: ${inFlightCommitted}`,
      );
    },
  );
});
