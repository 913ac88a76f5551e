/**
 * npm run bench:testing — snapshots, restore, fork and reset of a ledger of BENCH_TESTING_UPDATES (default 100,000)
 * updates, through the server's admin API (a child process, timed by the client), each next to its baseline measured in
 * the same run: PostgreSQL's own `CREATE DATABASE … TEMPLATE …` of the same ledger (from a template nobody is connected
 * to, so it measures the copy alone). And the time from "new test ledger" (POST /v2/admin/ledgers from a snapshot) to
 * the first answered request on it. Each operation is paired with a baseline copy measured just before it; the median
 * of the paired ratios is reported.
 *
 * Knobs: BENCH_DATABASE_URL, BENCH_TESTING_UPDATES (default 100000), BENCH_TESTING_ROUNDS (default 3).
 * Goal: snapshot, restore, fork and reset ≤ 1.5× the baseline.
 */
import 'reflect-metadata';
import { Client } from 'pg';
import { mintHs256Token } from '@ledgerline/auth';
import { benchAdminUrl, envInt, fmt, printTable, withBenchDatabase } from './lib';
import { fillUpdateLog, startReadServer } from './lib/update-log';

const UPDATES = envInt('BENCH_TESTING_UPDATES', 100_000);
const ROUNDS = envInt('BENCH_TESTING_ROUNDS', 3);
const SECRET = 'bench-testing-secret-0123456789abcdef';
const PORT = envInt('BENCH_PORT', 7691);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  await withBenchDatabase({ label: 'testing', migrate: true }, async (db) => {
    const admin = new Client({ connectionString: benchAdminUrl() });
    await admin.connect();
    try {
      const { participantId, seconds } = await fillUpdateLog(db.url, UPDATES);
      console.log(`ledger of ${UPDATES} updates written in ${fmt(seconds, 1)} s`);
      const size = (await admin.query<{ s: string }>('SELECT pg_size_pretty(pg_database_size($1)) AS s', [db.name]))
        .rows[0].s;
      console.log(`database size: ${size}`);
      const server = await startReadServer(db.url, PORT, SECRET, { LEDGER_TESTING_API: 'true' });
      const token = await mintHs256Token({
        secret: SECRET,
        userId: 'participant_admin',
        participantId,
        expiresInSeconds: 3600,
      });
      const base = `http://127.0.0.1:${PORT}`;
      const call = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(base + path, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
        return JSON.parse(text) as Record<string, any>;
      };
      const timed = async (f: () => Promise<unknown>) => {
        const t0 = performance.now();
        await f();
        return performance.now() - t0;
      };
      // Lets the previous round's background drops finish, so that no measurement pays for another's.
      const settle = () => new Promise((r) => setTimeout(r, 1500));
      const t: Record<string, number[]> = {
        baseline: [],
        snapshot: [],
        restore: [],
        fork: [],
        reset: [],
        newLedger: [],
      };
      try {
        await call('POST', '/v2/admin/snapshots', { name: 'seed' });
        const seedDb = `${db.name}__snap__seed`;
        // Every operation is paired with a baseline copy measured just before it: the copies of ~1 GB each trigger
        // checkpoints and background drops that land on whichever statement comes next, so each pair shares its weather.
        let copies = 0;
        const baseline = async (op: string) => {
          const copy = `${db.name}__bench_${copies++}`;
          await settle();
          const ms = await timed(() => admin.query(`CREATE DATABASE "${copy}" TEMPLATE "${seedDb}"`));
          await admin.query(`DROP DATABASE "${copy}"`);
          await settle();
          t[`${op}:baseline`] ??= [];
          t[`${op}:baseline`].push(ms);
          t.baseline.push(ms);
        };
        for (let r = 0; r < ROUNDS; r++) {
          await baseline('snapshot');
          t.snapshot.push(await timed(() => call('POST', '/v2/admin/snapshots', { name: `r${r}` })));
          await baseline('restore');
          t.restore.push(await timed(() => call('POST', `/v2/admin/snapshots/r${r}/restore`)));
          await baseline('fork');
          t.fork.push(await timed(() => call('POST', `/v2/admin/snapshots/r${r}/fork`, { name: `f${r}` })));
          await call('DELETE', `/v2/admin/forks/f${r}`);
          await baseline('reset');
          t.reset.push(await timed(() => call('POST', '/v2/admin/reset', { snapshot: `r${r}` })));
          await baseline('newLedger');
          t.newLedger.push(
            await timed(async () => {
              const ledger = await call('POST', '/v2/admin/ledgers', { snapshot: 'seed', ledgerId: `b${r}` });
              await call('GET', `${ledger.path}/v2/state/ledger-end`);
            }),
          );
          await call('DELETE', `/v2/admin/ledgers/b${r}`);
          await call('DELETE', `/v2/admin/snapshots/r${r}`);
        }
        const end = await call('GET', '/v2/state/ledger-end');
        if (end.offset !== UPDATES)
          throw new Error(`ledger end after the rounds is ${end.offset}, expected ${UPDATES}`);
      } finally {
        server.kill('SIGTERM');
        await new Promise((r) => server.once('exit', r));
        const { rows } = await admin.query<{ datname: string }>(
          'SELECT datname FROM pg_database WHERE starts_with(datname, $1)',
          [`${db.name}__`],
        );
        for (const row of rows)
          await admin.query(`DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`).catch(() => undefined);
      }
      const ratio = (op: string) => median(t[op].map((ms, i) => ms / t[`${op}:baseline`][i]));
      const rows: Array<Array<string | number>> = [
        ['operation', 'median ms', 'min ms', 'max ms', 'paired baseline median ms', 'median of paired ratios', 'goal'],
      ];
      rows.push([
        'CREATE DATABASE … TEMPLATE (all baselines)',
        fmt(median(t.baseline), 0),
        fmt(Math.min(...t.baseline), 0),
        fmt(Math.max(...t.baseline), 0),
        '',
        '1.00',
        '',
      ]);
      for (const op of ['snapshot', 'restore', 'fork', 'reset', 'newLedger'] as const) {
        const m = median(t[op]);
        const q = ratio(op);
        const goal = op === 'newLedger' ? '' : q <= 1.5 ? '≤ 1.5 met' : '≤ 1.5 MISSED';
        rows.push([
          op === 'newLedger' ? 'new test ledger → first answer' : op,
          fmt(m, 0),
          fmt(Math.min(...t[op]), 0),
          fmt(Math.max(...t[op]), 0),
          fmt(median(t[`${op}:baseline`]), 0),
          fmt(q, 2),
          goal,
        ]);
      }
      console.log(`\n${UPDATES} updates, ${ROUNDS} interleaved rounds, times seen by the admin API's client:`);
      printTable(rows);
    } finally {
      await admin.end();
    }
  });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
