/**
 * npm run bench:read — the read side with BENCH_READ_UPDATES (default 100,000) updates in the log:
 *   (a) POST /v2/updates/flats, pages of 200 read one after the other with a one-party filter;
 *   (b) the WebSocket stream (GET /v2/updates) of the whole range, party-wildcard;
 *   (c) POST /v2/updates/transaction-by-id from 16 concurrent clients;
 *   (d) the active contract set (every update created one contract: BENCH_READ_UPDATES active contracts), party-wildcard,
 *       as one POST /v2/state/active-contracts list;
 *   (e) the same over the WebSocket (GET /v2/state/active-contracts);
 *   (f) POST /v2/updates/flats, pages of 200 read one after the other with a 256-party filter (the ten parties of the
 *       log and 246 others), which selects every update.
 * Each next to its baseline measured in the same run on the same database: the raw SQL read of the same rows through
 * `pg` (keyset pages / lookups by update id, JSON payloads parsed; for (d) and (e) the activations joined with their
 * contracts' created events, for (f) the range of updates by offset). The server runs as a child process; its resident
 * memory (VmRSS) is sampled every 100 ms throughout, and reported at every tenth of the WebSocket stream.
 *
 * Knobs: BENCH_DATABASE_URL, BENCH_READ_UPDATES (default 100000), BENCH_DURATION_MS (transaction-by-id, default 5000),
 * BENCH_WARMUP_MS (default 1000), BENCH_SERVER_NODE_ARGS (extra node flags for the server, e.g. --cpu-prof),
 * BENCH_READ_PHASES (which of a to f to run; default abcdef).
 * Targets: WebSocket ≥ 30,000 updates/s and ≥ 0.3× raw; transaction-by-id ≥ 5,000 lookups/s with p99 ≤ 20 ms; the active
 * contract set (list and WebSocket) and the 256-party flats ≥ 0.3× raw; RSS < 300 MB outside the ACS list (which holds
 * its whole answer).
 */
import 'reflect-metadata';
import fs from 'node:fs';
import { Pool } from 'pg';
import WebSocket from 'ws';
import { mintHs256Token } from '@ledgerline/auth';
import { envInt, fmt, printTable, runConcurrent, withBenchDatabase, type RunResult } from './lib';
import { fastFetch } from './lib/http-client';
import { BENCH_PARTIES, fillUpdateLog, startReadServer } from './lib/update-log';

const UPDATES = envInt('BENCH_READ_UPDATES', 100_000);
const durationMs = envInt('BENCH_DURATION_MS', 5000);
const warmupMs = Number(process.env.BENCH_WARMUP_MS ?? 1000);
const SECRET = 'bench-read-secret-0123456789abcdef';
const PARTIES = BENCH_PARTIES;
const PAGE = 200;
const PHASES = process.env.BENCH_READ_PHASES ?? 'abcdef';
/** The 256 parties of (f): the log's ten and 246 that see nothing. */
const MANY_PARTIES = [...PARTIES, ...Array.from({ length: 246 }, (_, i) => `other${i}::1220${'ab'.repeat(32)}`)];

class RssSampler {
  private timer: NodeJS.Timeout;
  max = 0;
  phaseMax = 0;
  constructor(private readonly pid: number) {
    this.timer = setInterval(() => this.sample(), 100);
  }
  sample(): number {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${this.pid}/status`, 'utf8'));
      const mb = m ? Number(m[1]) / 1024 : 0;
      this.max = Math.max(this.max, mb);
      this.phaseMax = Math.max(this.phaseMax, mb);
      return mb;
    } catch {
      return 0;
    }
  }
  phase(): number {
    const v = this.phaseMax;
    this.phaseMax = this.sample();
    return v;
  }
  stop(): void {
    clearInterval(this.timer);
  }
}

async function main(): Promise<void> {
  console.log(
    `read benchmark: ${UPDATES} updates; flats pages of ${PAGE}; transaction-by-id ${durationMs} ms at 16 clients after ${warmupMs} ms warm-up`,
  );
  await withBenchDatabase({ label: 'read', migrate: true }, async ({ url }) => {
    // 1. The log: UPDATES transactions (one create each), ten parties, each update seen by two of them.
    const { participantId, seconds } = await fillUpdateLog(url, UPDATES);
    const identity = { participantId };
    console.log(`wrote ${UPDATES} updates in ${fmt(seconds)} s`);

    const port = 20000 + Math.floor(Math.random() * 20000);
    // The list maxima (elements and bytes) admit the whole active contract set of (d) as one list.
    const server = await startReadServer(url, port, SECRET, {
      LEDGER_HTTP_LIST_MAX_ELEMENTS: String(UPDATES + 1),
      LEDGER_HTTP_LIST_MAX_BYTES: String(1024 * 1024 * 1024),
    });
    const rss = new RssSampler(server.pid!);
    const base = `http://127.0.0.1:${port}`;
    const pool = new Pool({ connectionString: url, max: 16 });
    const rows: Array<Array<string | number>> = [
      ['measurement', 'baseline (raw pg)', 'Ledgerline', 'ratio', 'p50 ms', 'p99 ms', 'server RSS MB'],
    ];
    const verdicts: string[] = [];
    try {
      const admin = await mintHs256Token({
        secret: SECRET,
        userId: 'participant_admin',
        participantId: identity.participantId,
      });
      const created = await fetch(`${base}/v2/users`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          user: { id: 'bench-reader' },
          rights: [{ kind: { CanReadAsAnyParty: { value: {} } } }],
        }),
      });
      if (!created.ok) throw new Error(`creating the reader failed: ${created.status} ${await created.text()}`);
      const token = await mintHs256Token({
        secret: SECRET,
        userId: 'bench-reader',
        participantId: identity.participantId,
      });
      const post = (p: string, body: unknown) =>
        fastFetch(base + p, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      rss.phase();

      // (a) flats, one party, pages of PAGE, sequential.
      const party = PARTIES[0];
      const rawPages = async () => {
        const lat: number[] = [];
        let after = 0;
        let n = 0;
        const t = performance.now();
        for (;;) {
          const s = performance.now();
          const { rows: page } = await pool.query(
            `SELECT u.ledger_offset, u.update_id, u.payload FROM ledger_update_parties p JOIN ledger_updates u ON u.ledger_offset = p.ledger_offset
             WHERE p.party = $1 AND p.ledger_offset > $2 ORDER BY p.ledger_offset LIMIT $3`,
            [party, after, PAGE],
          );
          lat.push(performance.now() - s);
          n += page.length;
          if (page.length < PAGE) break;
          after = Number(page[page.length - 1].ledger_offset);
        }
        return { n, perSec: (n / (performance.now() - t)) * 1000, lat };
      };
      const flatsPages = async () => {
        const lat: number[] = [];
        let after = 0;
        let n = 0;
        const t = performance.now();
        for (;;) {
          const s = performance.now();
          const r = await post(`/v2/updates/flats?limit=${PAGE}`, {
            beginExclusive: after,
            endInclusive: UPDATES,
            filter: { filtersByParty: { [party]: {} } },
          });
          const page = (await r.json()) as Array<{ update: { Transaction: { value: { offset: number } } } }>;
          if (!r.ok) throw new Error(`flats failed: ${r.status} ${JSON.stringify(page)}`);
          lat.push(performance.now() - s);
          n += page.length;
          if (page.length < PAGE) break;
          after = page[page.length - 1].update.Transaction.value.offset;
        }
        return { n, perSec: (n / (performance.now() - t)) * 1000, lat };
      };
      if (PHASES.includes('a')) {
        await rawPages();
        const rawA = await rawPages();
        const flatsA = await flatsPages();
        if (rawA.n !== flatsA.n) throw new Error(`flats read ${flatsA.n} updates, raw ${rawA.n}`);
        const q = (lat: number[], p: number) =>
          [...lat].sort((a, b) => a - b)[Math.min(lat.length - 1, Math.ceil((p / 100) * lat.length) - 1)];
        rows.push([
          `(a) flats, 1 party, pages of ${PAGE} (${flatsA.n} updates), updates/s`,
          rawA.perSec,
          flatsA.perSec,
          `${fmt(flatsA.perSec / rawA.perSec, 2)}×`,
          q(flatsA.lat, 50),
          q(flatsA.lat, 99),
          rss.phase(),
        ]);
      }

      // (b) WebSocket, whole range, party-wildcard.
      const rawAll = async () => {
        let after = 0;
        let n = 0;
        const t = performance.now();
        for (;;) {
          const { rows: page } = await pool.query(
            'SELECT ledger_offset, update_id, kind, synchronizer_id, record_time, payload FROM ledger_updates WHERE ledger_offset > $1 ORDER BY ledger_offset LIMIT 1000',
            [after],
          );
          n += page.length;
          if (page.length < 1000) break;
          after = Number(page[page.length - 1].ledger_offset);
        }
        return { n, perSec: (n / (performance.now() - t)) * 1000 };
      };
      // The server's RSS at every tenth of the stream: flat memory means these do not grow with the updates streamed.
      const rssTrace: number[] = [];
      const tenth = Math.max(1, Math.floor(UPDATES / 10));
      const wsAll = () =>
        new Promise<{ n: number; perSec: number }>((resolve, reject) => {
          rssTrace.length = 0;
          const ws = new WebSocket(`ws://127.0.0.1:${port}/v2/updates`, ['daml.ws.auth', `jwt.token.${token}`]);
          let n = 0;
          let last = 0;
          let t = 0;
          ws.on('open', () => {
            t = performance.now();
            ws.send(JSON.stringify({ beginExclusive: 0, endInclusive: UPDATES, filter: { filtersForAnyParty: {} } }));
          });
          ws.on('message', (data) => {
            const m = JSON.parse(data.toString());
            const o = m.update?.Transaction?.value?.offset;
            if (o !== last + 1) reject(new Error(`unexpected message after ${last}: ${data.toString().slice(0, 200)}`));
            last = o;
            n++;
            if (n % tenth === 0) rssTrace.push(Math.round(rss.sample()));
          });
          ws.on('close', () => resolve({ n, perSec: (n / (performance.now() - t)) * 1000 }));
          ws.on('error', reject);
        });
      if (PHASES.includes('b')) {
        await rawAll();
        const rawB = await rawAll();
        const wsB = await wsAll();
        if (wsB.n !== UPDATES) throw new Error(`the WebSocket delivered ${wsB.n} of ${UPDATES}`);
        const ratioB = wsB.perSec / rawB.perSec;
        rows.push([
          `(b) WebSocket, whole range (${wsB.n} updates), updates/s`,
          rawB.perSec,
          wsB.perSec,
          `${fmt(ratioB, 2)}×`,
          '-',
          '-',
          rss.phase(),
        ]);
        verdicts.push(
          `WebSocket ≥ 30,000 updates/s and ≥ 0.3× raw: ${wsB.perSec >= 30_000 && ratioB >= 0.3 ? 'met' : 'MISSED'} (${fmt(wsB.perSec)} /s, ${fmt(ratioB, 2)}×)`,
        );
        verdicts.push(`server RSS (MB) at each tenth of the WebSocket stream: ${rssTrace.join(', ')}`);
      }

      // (c) transaction-by-id, 16 concurrent clients, random ids.
      if (PHASES.includes('c')) {
        const { rows: ids } = await pool.query<{ update_id: string; ledger_offset: string }>(
          'SELECT update_id, ledger_offset FROM ledger_updates ORDER BY ledger_offset',
        );
        const pick = (i: number) => ids[(i * 7919) % ids.length];
        const rawC: RunResult = await runConcurrent({
          concurrency: 16,
          durationMs,
          warmupMs,
          op: async (_, i) => {
            const { rows: r } = await pool.query(
              'SELECT ledger_offset, update_id, payload FROM ledger_updates WHERE update_id = $1',
              [pick(i).update_id],
            );
            if (r.length !== 1) throw new Error('not found');
          },
        });
        const byId: RunResult = await runConcurrent({
          concurrency: 16,
          durationMs,
          warmupMs,
          op: async (_, i) => {
            const row = pick(i);
            const owner = PARTIES[(Number(row.ledger_offset) - 1) % PARTIES.length];
            const r = await post('/v2/updates/transaction-by-id', {
              updateId: row.update_id,
              requestingParties: [owner],
            });
            const body = (await r.json()) as { transaction?: { offset: number } };
            if (!r.ok || body.transaction?.offset !== Number(row.ledger_offset))
              throw new Error(`lookup failed: ${r.status} ${JSON.stringify(body)}`);
          },
        });
        for (const r of [rawC, byId])
          if (r.errors) throw new Error(`${r.errors} lookups failed: ${String(r.firstError)}`);
        rows.push([
          '(c) transaction-by-id, 16 clients, lookups/s',
          rawC.opsPerSec,
          byId.opsPerSec,
          `${fmt(byId.opsPerSec / rawC.opsPerSec, 2)}×`,
          byId.latency.p50,
          byId.latency.p99,
          rss.phase(),
        ]);
        verdicts.push(
          `transaction-by-id ≥ 5,000/s with p99 ≤ 20 ms: ${byId.opsPerSec >= 5000 && byId.latency.p99 <= 20 ? 'met' : 'MISSED'} (${fmt(byId.opsPerSec)} /s, p99 ${fmt(byId.latency.p99)} ms)`,
        );
      }
      let rssMax = rss.max;

      // (f) flats, 256 parties, pages of PAGE, sequential; baseline: the same updates read by offset.
      const rawRange = async () => {
        let after = 0;
        let n = 0;
        const t = performance.now();
        for (;;) {
          const { rows: page } = await pool.query(
            'SELECT ledger_offset, update_id, kind, synchronizer_id, record_time, payload FROM ledger_updates WHERE ledger_offset > $1 ORDER BY ledger_offset LIMIT $2',
            [after, PAGE],
          );
          n += page.length;
          if (page.length < PAGE) break;
          after = Number(page[page.length - 1].ledger_offset);
        }
        return { n, perSec: (n / (performance.now() - t)) * 1000 };
      };
      if (PHASES.includes('f')) {
        const filter = { filtersByParty: Object.fromEntries(MANY_PARTIES.map((p) => [p, {}])) };
        const manyPages = async () => {
          let after = 0;
          let n = 0;
          const t = performance.now();
          for (;;) {
            const r = await post(`/v2/updates/flats?limit=${PAGE}`, {
              beginExclusive: after,
              endInclusive: UPDATES,
              filter,
            });
            const page = (await r.json()) as Array<{ update: { Transaction: { value: { offset: number } } } }>;
            if (!r.ok) throw new Error(`flats failed: ${r.status} ${JSON.stringify(page).slice(0, 300)}`);
            n += page.length;
            if (page.length < PAGE) break;
            after = page[page.length - 1].update.Transaction.value.offset;
          }
          return { n, perSec: (n / (performance.now() - t)) * 1000 };
        };
        await rawRange();
        const rawF = await rawRange();
        const flatsF = await manyPages();
        if (flatsF.n !== rawF.n) throw new Error(`flats (256 parties) read ${flatsF.n} updates, raw ${rawF.n}`);
        const ratio = flatsF.perSec / rawF.perSec;
        const phaseRss = rss.phase();
        rssMax = Math.max(rssMax, phaseRss);
        rows.push([
          `(f) flats, 256 parties, pages of ${PAGE} (${flatsF.n} updates), updates/s`,
          rawF.perSec,
          flatsF.perSec,
          `${fmt(ratio, 2)}×`,
          '-',
          '-',
          phaseRss,
        ]);
        verdicts.push(`flats with 256 parties ≥ 0.3× raw: ${ratio >= 0.3 ? 'met' : 'MISSED'} (${fmt(ratio, 2)}×)`);
      }
      // (d), (e) the active contract set at the ledger end, party-wildcard: list and WebSocket.
      const rawAcs = async () => {
        let after = [0, 0];
        let n = 0;
        const t = performance.now();
        for (;;) {
          const { rows: page } = await pool.query(
            `SELECT a.activated_offset, a.node_id, a.contract_id, a.synchronizer_id, a.reassignment_counter, a.workflow_id, k.created_event
             FROM contract_activations a LEFT JOIN contracts k ON (a.deactivated_offset IS NULL OR a.deactivated_offset > $3) AND k.contract_id = a.contract_id
             WHERE (a.activated_offset, a.node_id) > ($1, $2) AND a.activated_offset <= $3 ORDER BY a.activated_offset, a.node_id LIMIT 1000`,
            [after[0], after[1], UPDATES],
          );
          n += page.length;
          if (page.length < 1000) break;
          const last = page[page.length - 1];
          after = [Number(last.activated_offset), last.node_id];
        }
        return { n, perSec: (n / (performance.now() - t)) * 1000 };
      };
      const acsRequest = { activeAtOffset: UPDATES, eventFormat: { filtersForAnyParty: {}, verbose: false } };
      const acsList = async () => {
        const t = performance.now();
        const r = await post('/v2/state/active-contracts', acsRequest);
        const list = (await r.json()) as unknown[];
        if (!r.ok) throw new Error(`active-contracts failed: ${r.status} ${JSON.stringify(list).slice(0, 300)}`);
        return { n: list.length, perSec: (list.length / (performance.now() - t)) * 1000 };
      };
      const acsWs = () =>
        new Promise<{ n: number; perSec: number }>((resolve, reject) => {
          const ws = new WebSocket(`ws://127.0.0.1:${port}/v2/state/active-contracts`, [
            'daml.ws.auth',
            `jwt.token.${token}`,
          ]);
          let n = 0;
          let t = 0;
          ws.on('open', () => {
            t = performance.now();
            ws.send(JSON.stringify(acsRequest));
          });
          ws.on('message', (data) => {
            const m = JSON.parse(data.toString());
            if (!m.contractEntry?.JsActiveContract)
              reject(new Error(`unexpected message: ${data.toString().slice(0, 200)}`));
            n++;
          });
          ws.on('close', () => resolve({ n, perSec: (n / (performance.now() - t)) * 1000 }));
          ws.on('error', reject);
        });
      if (PHASES.includes('d') || PHASES.includes('e')) {
        await rawAcs();
        const rawD = await rawAcs();
        if (rawD.n !== UPDATES) throw new Error(`the raw read found ${rawD.n} active contracts of ${UPDATES}`);
        // The WebSocket first: the list holds its whole answer, and the memory it leaves behind would be counted against the next phase.
        for (const [phase, label, run] of [
          ['e', '(e) active contracts, WebSocket', acsWs],
          ['d', '(d) active contracts, list', acsList],
        ] as const) {
          if (!PHASES.includes(phase)) continue;
          const got = await run();
          if (got.n !== UPDATES) throw new Error(`${label} delivered ${got.n} of ${UPDATES}`);
          const ratio = got.perSec / rawD.perSec;
          const phaseRss = rss.phase();
          if (phase !== 'd') rssMax = Math.max(rssMax, phaseRss);
          rows.push([
            `${label} (${got.n} contracts), contracts/s`,
            rawD.perSec,
            got.perSec,
            `${fmt(ratio, 2)}×`,
            '-',
            '-',
            phaseRss,
          ]);
          verdicts.push(`${label} ≥ 0.3× raw: ${ratio >= 0.3 ? 'met' : 'MISSED'} (${fmt(ratio, 2)}×)`);
        }
      }

      verdicts.push(
        `server RSS < 300 MB outside the active contract list: ${rssMax < 300 ? 'met' : 'MISSED'} (max ${fmt(rssMax)} MB)`,
      );
    } finally {
      rss.stop();
      await pool.end();
      server.kill('SIGTERM');
      await new Promise((r) => server.once('exit', r));
    }
    console.log();
    printTable(rows);
    console.log();
    for (const v of verdicts) console.log(v);
  });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
