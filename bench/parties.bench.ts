/**
 * PATCH /v2/parties/{party} over HTTP against a server started as a child process on a fresh database on
 * 127.0.0.1:5432 (override with BENCH_PG_URL), plus the append baseline measured in the same run on the same server.
 *
 *   npm run bench:parties            (BENCH_SECONDS=10 by default per phase)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { SignJWT } from 'jose';
import { serverNodeArgs } from './lib/server-args';
import { adminQuery, withDatabase } from '../testkit/database';

const ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = 2;
const PARTIES = 1000;
const SECRET = 'bench-secret-for-ledgerline-parties';

interface Res {
  status: number;
  body: string;
}

let agent: http.Agent;
let port = 0;
let auth = '';

function request(method: string, urlPath: string, body?: unknown): Promise<Res> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: urlPath,
        agent,
        headers: {
          authorization: auth,
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

const pct = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;

interface PhaseResult {
  name: string;
  clients: number;
  seconds: number;
  requests: number;
  ok: number;
  conflicts: number;
  other: number;
  p50: number;
  p99: number;
}

/** Runs `clients` loops of `op` for WARMUP + SECONDS; counts only the measured window. */
async function phase(
  name: string,
  clients: number,
  op: (client: number, i: number) => Promise<number>,
): Promise<PhaseResult> {
  const lat: number[] = [];
  let ok = 0;
  let conflicts = 0;
  let other = 0;
  const start = performance.now();
  const measureFrom = start + WARMUP_SECONDS * 1000;
  const end = measureFrom + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = 0; ; i++) {
        const t0 = performance.now();
        if (t0 >= end) return;
        const status = await op(c, i);
        const t1 = performance.now();
        if (t0 >= measureFrom && t1 <= end) {
          lat.push(t1 - t0);
          if (status === 200) ok++;
          else if (status === 409) conflicts++;
          else other++;
        }
      }
    }),
  );
  lat.sort((a, b) => a - b);
  return {
    name,
    clients,
    seconds: SECONDS,
    requests: lat.length,
    ok,
    conflicts,
    other,
    p50: pct(lat, 50),
    p99: pct(lat, 99),
  };
}

/** A port nobody listens on right now (other ledgers may run on this machine). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const p = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(p));
    });
  });
}

async function main() {
  const dbName = `bench_parties_${randomBytes(6).toString('hex')}`;
  await adminQuery(ADMIN_URL, `CREATE DATABASE ${dbName}`);
  const dbUrl = withDatabase(ADMIN_URL, dbName);
  port = await freePort();
  let server: ChildProcess | null = null;
  try {
    server = spawn(
      process.execPath,
      [...serverNodeArgs(), path.join(__dirname, '..', 'apps', 'server', 'src', 'main.js')],
      {
        env: {
          ...process.env,
          DATABASE_URL: dbUrl,
          LEDGER_JWT_SECRET: SECRET,
          HOST: '127.0.0.1',
          PORT: String(port),
          LEDGER_GRPC_PORT: 'off',
          LEDGER_LOG_LEVEL: 'error',
          LEDGER_DB_POOL_SIZE: process.env.LEDGER_DB_POOL_SIZE ?? '20',
        },
        stdio: ['ignore', 'inherit', 'inherit'],
      },
    );
    agent = new http.Agent({ keepAlive: true, maxSockets: 128 });
    for (let i = 0; ; i++) {
      try {
        if ((await request('GET', '/readyz')).status === 200) break;
      } catch {
        /* not up yet */
      }
      if (i > 300) throw new Error('server did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
    const now = Math.floor(Date.now() / 1000);
    auth = `Bearer ${await new SignJWT({ scope: 'daml_ledger_api' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('participant_admin')
      .setExpirationTime(now + 3600)
      .sign(Buffer.from(SECRET))}`;
    const sync = JSON.parse((await request('GET', '/v2/state/connected-synchronizers')).body).connectedSynchronizers[0]
      .synchronizerId as string;

    // 1,000 parties
    const parties: string[] = [];
    for (let i = 0; i < PARTIES; i += 50) {
      const batch = await Promise.all(
        Array.from({ length: 50 }, (_, k) =>
          request('POST', '/v2/parties', {
            partyIdHint: `bench-${i + k}`,
            synchronizerId: sync,
            localMetadata: { annotations: { seed: 'x' } },
          }),
        ),
      );
      for (const r of batch) {
        if (r.status !== 200) throw new Error(`allocation failed: ${r.status} ${r.body}`);
        parties.push(JSON.parse(r.body).partyDetails.party);
      }
    }

    const patchBody = (party: string, key: string, value: string, version = '') => ({
      partyDetails: {
        party,
        isLocal: true,
        localMetadata: { resourceVersion: version, annotations: { [key]: value } },
        identityProviderId: '',
      },
      updateMask: { paths: ['local_metadata.annotations'] },
    });
    const spread = (clients: number) =>
      phase(`PATCH, ${clients} clients over ${PARTIES} parties`, clients, async (c, i) => {
        const party = parties[(c * 7919 + i * 104729) % PARTIES];
        return (
          await request('PATCH', `/v2/parties/${encodeURIComponent(party)}`, patchBody(party, `c${c % 8}`, String(i)))
        ).status;
      });

    const metric = async (name: string) => {
      const text = (await request('GET', '/metrics')).body;
      const get = (suffix: string) =>
        Number(new RegExp(`^${name}_${suffix} ([0-9.e+-]+)$`, 'm').exec(text)?.[1] ?? NaN);
      return { sum: get('sum'), count: get('count') };
    };
    const batchStats = async <T>(f: () => Promise<T>): Promise<T> => {
      const [s0, d0] = [
        await metric('ledgerline_append_batch_size'),
        await metric('ledgerline_append_batch_duration_seconds'),
      ];
      const out = await f();
      const [s1, d1] = [
        await metric('ledgerline_append_batch_size'),
        await metric('ledgerline_append_batch_duration_seconds'),
      ];
      const n = s1.count - s0.count;
      console.log(
        `  group commit: ${n} batches, ${((s1.sum - s0.sum) / n).toFixed(1)} works/batch, ${((1000 * (d1.sum - d0.sum)) / n).toFixed(2)} ms/batch`,
      );
      return out;
    };

    const results: PhaseResult[] = [];
    results.push(await batchStats(() => spread(16)));
    results.push(await batchStats(() => spread(64)));

    // contention: 64 clients on one party, each with the version it last saw (refreshing it after a 409)
    const hot = parties[0];
    const hotPath = `/v2/parties/${encodeURIComponent(hot)}`;
    const current = async () =>
      JSON.parse((await request('GET', hotPath)).body).partyDetails[0].localMetadata.resourceVersion as string;
    const known = await Promise.all(Array.from({ length: 64 }, () => current()));
    results.push(
      await batchStats(() =>
        phase('PATCH with resourceVersion, 64 clients on 1 party', 64, async (c, i) => {
          const r = await request('PATCH', hotPath, patchBody(hot, `c${c}`, String(i), known[c]));
          if (r.status === 200) known[c] = JSON.parse(r.body).partyDetails.localMetadata.resourceVersion;
          else if (r.status === 409) known[c] = await current();
          return r.status;
        }),
      ),
    );

    // append baseline: one single-row INSERT (its own transaction: INSERT + COMMIT) per append, 64 concurrent, same database
    const pool = new Pool({ connectionString: dbUrl, max: 64 });
    pool.on('error', (e) => console.error('baseline pool:', e.message));
    await pool.query('CREATE TABLE bench_append (id bigserial PRIMARY KEY, stream text NOT NULL, data jsonb NOT NULL)');
    const payload = JSON.stringify({ party: hot, annotations: { k: 'v' } });
    results.push(
      await phase('append baseline: INSERT + COMMIT via pg', 64, async (c) => {
        await pool.query('INSERT INTO bench_append (stream, data) VALUES ($1, $2)', [`s${c}`, payload]);
        return 200;
      }),
    );
    await pool.end();

    const rate = (r: PhaseResult) => r.ok / r.seconds;
    console.log(`\nPATCH /v2/parties/{party} — ${SECONDS} s per phase after ${WARMUP_SECONDS} s warm-up\n`);
    console.log('| phase | clients | successful/s | 409/s | other | p50 ms | p99 ms |');
    console.log('|---|---|---|---|---|---|---|');
    for (const r of results) {
      console.log(
        `| ${r.name} | ${r.clients} | ${rate(r).toFixed(0)} | ${(r.conflicts / r.seconds).toFixed(0)} | ${r.other} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} |`,
      );
    }
    const c = results[2];
    console.log(
      `\ncontention: ${((100 * c.ok) / c.requests).toFixed(1)}% success, ${((100 * c.conflicts) / c.requests).toFixed(1)}% 409`,
    );
    console.log(`ratio PATCH (64 clients) / append baseline: ${(rate(results[1]) / rate(results[3])).toFixed(2)}`);
    console.log(
      `target ≥ 3000 successful PATCH/s at 64 clients with p99 ≤ 50 ms: ${rate(results[1]) >= 3000 && results[1].p99 <= 50 ? 'met' : 'NOT met'}`,
    );
  } finally {
    agent?.destroy();
    if (server && server.exitCode === null) {
      server.kill('SIGTERM');
      await new Promise((r) => server!.once('exit', r));
    }
    await adminQuery(ADMIN_URL, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
