/**
 * npm run soak — a mixed load against the service for a configurable time, reporting throughput, p99 latency, error
 * counts by code and the server's resident memory over time (the goal: a flat memory line).
 *
 * The service runs as a child process (node dist/apps/server/src/main.js) on a throwaway database; this process is the
 * load generator. Each client owns one locally allocated party (with a registered Ed25519 key, so it can also sign
 * interactive submissions) and loops over a fixed mix:
 *   create   — executeAndWait of a signed create (35 %)
 *   archive  — executeAndWait of a signed consuming Archive of one of its contracts (20 %)
 *   reassign — unassign + assign round trip of one of its contracts between the two synchronizers (10 %)
 *   patch    — PATCH /v2/parties/{party} annotations, as the admin (10 %)
 *   flats    — POST /v2/updates/flats over the last 40 offsets, any party (15 %)
 *   by-id    — POST /v2/updates/transaction-by-id of a recent create (10 %)
 * The server's VmRSS (/proc/<pid>/status) is sampled every SOAK_SAMPLE_S seconds and printed as it goes; the summary has
 * one row per minute and the memory drift from the end of minute 1 to the end.
 *
 * Knobs: SOAK_DURATION_S (600), SOAK_CLIENTS (16), SOAK_SAMPLE_S (5), BENCH_DATABASE_URL, SOAK_JSON=1 (print the
 * samples as JSON at the end).
 */
import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { mintHs256Token } from '@ledgerline/auth';
import { openDatabase } from '@ledgerline/store';
import { seedPartySigningKeys } from '../testkit/signing-keys';
import { loadParticipantIdentity } from '@ledgerline/server/infrastructure/participant-identity';
import { envInt, fmt, printTable, serverNodeArgs, summarize, withBenchDatabase } from './lib';
import {
  createNode,
  executeRequest,
  exerciseNode,
  extraKey,
  freshContractId,
  preparedTransaction,
  type ExternalParty,
} from '../testkit/external-signing';

const DURATION_S = envInt('SOAK_DURATION_S', 600);
const CLIENTS = envInt('SOAK_CLIENTS', 16);
const SAMPLE_S = envInt('SOAK_SAMPLE_S', 5);
const SECRET = 'soak-secret-soak-secret-soak-secret';
const PORT = 18000 + Math.floor(Math.random() * 1000);
const USER = 'soak-app';
const OPS = ['create', 'archive', 'reassign', 'patch', 'flats', 'by-id'] as const;
type Op = (typeof OPS)[number];
/** The mix, in 20 slots (5 % each). */
const MIX: Op[] = [
  ...Array<Op>(7).fill('create'),
  ...Array<Op>(4).fill('archive'),
  ...Array<Op>(2).fill('reassign'),
  ...Array<Op>(2).fill('patch'),
  ...Array<Op>(3).fill('flats'),
  ...Array<Op>(2).fill('by-id'),
];

const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS * 2 });

function request(
  method: string,
  pathname: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; json: any }> {
  const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { authorization: `Bearer ${token}` };
    if (text !== undefined)
      Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    const req = http.request({ host: '127.0.0.1', port: PORT, path: pathname, method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const raw = Buffer.concat(chunks).toString();
        let json: unknown = raw;
        try {
          json = JSON.parse(raw);
        } catch {
          /* text/plain decode errors */
        }
        resolve({ status: res.statusCode ?? 0, json });
      });
    });
    req.on('error', reject);
    req.end(text);
  });
}

/** A failed operation, counted under `code` (HTTP status + JsCantonError code, or the transport error). */
class OpError extends Error {
  constructor(readonly code: string) {
    super(code);
  }
}

async function ok(method: string, pathname: string, token: string, body?: unknown): Promise<any> {
  let r: { status: number; json: any };
  try {
    r = await request(method, pathname, token, body);
  } catch (e) {
    throw new OpError(`transport ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (r.status !== 200)
    throw new OpError(
      `${r.status} ${typeof r.json === 'object' && r.json ? r.json.code : String(r.json).slice(0, 60)}`,
    );
  return r.json;
}

async function startServer(url: string): Promise<ChildProcess> {
  const main = path.resolve(__dirname, '../apps/server/src/main.js');
  const child = spawn(process.execPath, [...serverNodeArgs(), main], {
    env: {
      ...process.env,
      DATABASE_URL: url,
      PORT: String(PORT),
      LEDGER_GRPC_PORT: 'off',
      HOST: '127.0.0.1',
      LEDGER_JWT_SECRET: SECRET,
      LEDGER_SYNCHRONIZERS: 'global,secondary',
      LEDGER_LOG_LEVEL: 'warn',
      LEDGER_DB_POOL_SIZE: '10',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`http://127.0.0.1:${PORT}/livez`)).status < 500) return child;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('server did not start');
}

/** Resident set size of `pid` in MiB (Linux /proc), NaN elsewhere. */
function rssMiB(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

interface Contract {
  contractId: string;
  synchronizerId: string;
}

interface Sample {
  t: number;
  rssMiB: number;
  ops: number;
  errors: number;
}

async function main(): Promise<void> {
  console.log(
    `soak: ${DURATION_S} s, ${CLIENTS} clients, memory sampled every ${SAMPLE_S} s; mix ${OPS.map((o) => `${o} ${MIX.filter((m) => m === o).length * 5} %`).join(', ')}`,
  );
  await withBenchDatabase({ label: 'soak', migrate: true }, async ({ url }) => {
    const server = await startServer(url);
    try {
      const database = openDatabase(url, { max: 2 });
      const identity = await loadParticipantIdentity(database.db, 'participant1', ['global', 'secondary']);
      const [A, B] = identity.synchronizers.map((s) => s.id);
      const admin = await mintHs256Token({
        secret: SECRET,
        userId: 'participant_admin',
        participantId: identity.participantId,
        expiresInSeconds: 24 * 3600,
      });

      // One hosted party per client, with a registered signing key (so it may both submit and sign).
      const parties: ExternalParty[] = [];
      for (let i = 0; i < CLIENTS; i++) {
        const r = await ok('POST', '/v2/parties', admin, {
          partyIdHint: `soak-${i}`,
          synchronizerId: A,
          localMetadata: { annotations: {} },
        });
        const signer = extraKey(r.partyDetails.party as string);
        await seedPartySigningKeys(database.db, signer.party, [
          {
            fingerprint: signer.fingerprint,
            keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519',
            keyFormat: 'CRYPTO_KEY_FORMAT_RAW',
            publicKey: signer.rawPublicKey.toString('base64'),
          },
        ]);
        parties.push(signer);
      }
      await database.close();
      const rights = ['CanExecuteAsAnyParty', 'CanActAsAnyParty', 'CanReadAsAnyParty'].map((k) => ({
        kind: { [k]: { value: {} } },
      }));
      await ok('POST', '/v2/users', admin, { user: { id: USER, primaryParty: '' }, rights });
      const token = await mintHs256Token({
        secret: SECRET,
        userId: USER,
        participantId: identity.participantId,
        expiresInSeconds: 24 * 3600,
      });

      const latencies = new Map<Op, number[]>(OPS.map((o) => [o, []]));
      const errorsByCode = new Map<string, number>();
      const recentCreates: string[] = [];
      let lastOffset = 0;
      let opsDone = 0;
      let errorsDone = 0;
      let seq = 0;

      const execute = async (
        signer: ExternalParty,
        synchronizerId: string,
        node: Parameters<typeof preparedTransaction>[0]['nodes'][number],
      ) => {
        const pt = preparedTransaction({
          nodes: [node],
          actAs: [signer.party],
          synchronizerId,
          commandId: `soak-${seq++}`,
        });
        // The transaction's answer names the committed contract ids (the prepared local ids with Canton's suffix).
        const r = await ok(
          'POST',
          '/v2/interactive-submission/executeAndWaitForTransaction',
          token,
          executeRequest(pt, [signer]),
        );
        lastOffset = Math.max(lastOffset, Number(r.transaction.offset));
        const created = (r.transaction.events as Array<{ CreatedEvent?: { contractId: string } }>).flatMap((e) =>
          e.CreatedEvent ? [e.CreatedEvent.contractId] : [],
        );
        return { updateId: r.transaction.updateId as string, created };
      };
      const reassign = async (
        party: string,
        kind: 'unassign' | 'assign',
        id: string,
        source: string,
        target: string,
      ) => {
        const command =
          kind === 'unassign'
            ? { UnassignCommand: { value: { contractId: id, source, target } } }
            : { AssignCommand: { value: { reassignmentId: id, source, target } } };
        const r = await ok('POST', '/v2/commands/submit-and-wait-for-reassignment', token, {
          reassignmentCommands: { commandId: `soak-${kind}-${seq++}`, submitter: party, commands: [{ command }] },
          eventFormat: { filtersByParty: { [party]: { cumulative: [] } } },
        });
        lastOffset = Math.max(lastOffset, Number(r.reassignment.offset));
        const e = r.reassignment.events[0];
        return (e.JsUnassignedEvent?.value.reassignmentId ?? e.JsAssignmentEvent?.reassignmentId) as string;
      };

      const client = async (w: number, until: number) => {
        const signer = parties[w];
        const mine: Contract[] = [];
        let k = w;
        while (performance.now() < until) {
          let op = MIX[k++ % MIX.length];
          if ((op === 'archive' || op === 'reassign') && mine.length === 0) op = 'create';
          if ((op === 'by-id' && recentCreates.length === 0) || (op === 'flats' && lastOffset < 1)) op = 'create';
          const t0 = performance.now();
          try {
            switch (op) {
              case 'create': {
                const ref = {
                  contractId: freshContractId(),
                  signatories: [signer.party],
                  stakeholders: [signer.party],
                };
                const { updateId, created } = await execute(signer, A, createNode('0', ref));
                mine.push({ contractId: created[0], synchronizerId: A });
                recentCreates.push(updateId);
                if (recentCreates.length > 256) recentCreates.shift();
                break;
              }
              case 'archive': {
                const c = mine.shift()!;
                await execute(
                  signer,
                  c.synchronizerId,
                  exerciseNode('0', {
                    contractId: c.contractId,
                    signatories: [signer.party],
                    stakeholders: [signer.party],
                    actingParties: [signer.party],
                  }),
                );
                break;
              }
              case 'reassign': {
                const c = mine.shift()!;
                const target = c.synchronizerId === A ? B : A;
                const rid = await reassign(signer.party, 'unassign', c.contractId, c.synchronizerId, target);
                await reassign(signer.party, 'assign', rid, c.synchronizerId, target);
                mine.push({ contractId: c.contractId, synchronizerId: target });
                break;
              }
              case 'patch':
                await ok('PATCH', `/v2/parties/${encodeURIComponent(signer.party)}`, admin, {
                  partyDetails: { party: signer.party, localMetadata: { annotations: { soak: String(seq++) } } },
                  updateMask: { paths: ['local_metadata.annotations'] },
                });
                break;
              case 'flats': {
                const end = lastOffset;
                await ok('POST', '/v2/updates/flats?limit=100', token, {
                  beginExclusive: Math.max(0, end - 40),
                  endInclusive: end,
                  filter: { filtersForAnyParty: {} },
                  verbose: false,
                });
                break;
              }
              case 'by-id': {
                const updateId = recentCreates[Math.floor(Math.random() * recentCreates.length)];
                await ok('POST', '/v2/updates/transaction-by-id', token, {
                  updateId,
                  requestingParties: [signer.party],
                });
                break;
              }
            }
            latencies.get(op)!.push(performance.now() - t0);
            opsDone++;
          } catch (e) {
            const code = e instanceof OpError ? e.code : `client ${(e as Error).message.slice(0, 60)}`;
            // transaction-by-id of another client's create: not visible to this party → 404 is expected, not an error.
            if (op === 'by-id' && code === '404 UPDATE_NOT_FOUND') {
              latencies.get(op)!.push(performance.now() - t0);
              opsDone++;
              continue;
            }
            errorsByCode.set(`${op}: ${code}`, (errorsByCode.get(`${op}: ${code}`) ?? 0) + 1);
            errorsDone++;
          }
        }
      };

      const samples: Sample[] = [{ t: 0, rssMiB: rssMiB(server.pid!), ops: 0, errors: 0 }];
      const started = performance.now();
      const until = started + DURATION_S * 1000;
      console.log(`\n${'t (s)'.padStart(6)}  ${'RSS MiB'.padStart(8)}  ${'ops/s'.padStart(7)}  errors`);
      console.log(`${'0'.padStart(6)}  ${fmt(samples[0].rssMiB).padStart(8)}`);
      const sampler = setInterval(() => {
        const prev = samples[samples.length - 1];
        const s: Sample = {
          t: (performance.now() - started) / 1000,
          rssMiB: rssMiB(server.pid!),
          ops: opsDone,
          errors: errorsDone,
        };
        samples.push(s);
        console.log(
          `${fmt(s.t, 0).padStart(6)}  ${fmt(s.rssMiB).padStart(8)}  ${fmt((s.ops - prev.ops) / (s.t - prev.t)).padStart(7)}  ${s.errors}`,
        );
      }, SAMPLE_S * 1000);
      await Promise.all(Array.from({ length: CLIENTS }, (_, w) => client(w, until)));
      clearInterval(sampler);
      const elapsedS = (performance.now() - started) / 1000;
      samples.push({ t: elapsedS, rssMiB: rssMiB(server.pid!), ops: opsDone, errors: errorsDone });

      // Per-minute rows: throughput, RSS at the end of the minute, min and max within it.
      console.log(
        `\n${os.cpus().length} CPUs, load average ${os
          .loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}; ${fmt(elapsedS, 0)} s, ${opsDone} operations, ${errorsDone} errors\n`,
      );
      const minutes: Array<Array<string | number>> = [
        ['minute', 'ops/s', 'RSS at end MiB', 'RSS min MiB', 'RSS max MiB', 'errors'],
      ];
      for (let m = 1; (m - 1) * 60 < elapsedS - 1; m++) {
        const inMin = samples.filter((s) => s.t > (m - 1) * 60 && s.t <= m * 60 + 0.5);
        if (inMin.length === 0) continue;
        const before = samples.filter((s) => s.t <= (m - 1) * 60 + 0.5).at(-1) ?? samples[0];
        const last = inMin[inMin.length - 1];
        minutes.push([
          String(m),
          (last.ops - before.ops) / (last.t - before.t),
          last.rssMiB,
          Math.min(...inMin.map((s) => s.rssMiB)),
          Math.max(...inMin.map((s) => s.rssMiB)),
          String(last.errors - before.errors),
        ]);
      }
      printTable(minutes);

      console.log('\nper operation:');
      const all = OPS.flatMap((o) => latencies.get(o)!);
      printTable([
        ['operation', 'count', 'per second', 'p50 ms', 'p99 ms', 'max ms'],
        ...OPS.map((o) => {
          const l = summarize(latencies.get(o)!);
          return [o, String(l.count), l.count / elapsedS, l.p50, l.p99, l.max];
        }),
        ['all', String(all.length), all.length / elapsedS, summarize(all).p50, summarize(all).p99, summarize(all).max],
      ]);

      console.log('\nerrors by code:');
      if (errorsByCode.size === 0) console.log('  none');
      else
        printTable([
          ['operation: status code', 'count'],
          ...[...errorsByCode].sort((a, b) => b[1] - a[1]).map(([c, n]) => [c, String(n)]),
        ]);

      const atMinute1 = samples.filter((s) => s.t <= 60.5).at(-1)!;
      const end = samples[samples.length - 1];
      console.log(
        `\nserver RSS: start ${fmt(samples[0].rssMiB)} MiB, after minute 1 ${fmt(atMinute1.rssMiB)} MiB, end ${fmt(end.rssMiB)} MiB, ` +
          `peak ${fmt(Math.max(...samples.map((s) => s.rssMiB)))} MiB; drift from minute 1 to the end ${end.rssMiB - atMinute1.rssMiB >= 0 ? '+' : ''}${fmt(end.rssMiB - atMinute1.rssMiB)} MiB`,
      );
      // The line is a GC sawtooth: the per-minute floor (lowest sample) and ceiling show a trend better than two points do.
      const rows = minutes.slice(1);
      console.log(
        `per-minute RSS floor ${rows.map((r) => fmt(r[3] as number)).join(' → ')} MiB; ceiling ${rows.map((r) => fmt(r[4] as number)).join(' → ')} MiB`,
      );
      if (process.env.SOAK_JSON) console.log(JSON.stringify({ samples, errors: Object.fromEntries(errorsByCode) }));
    } finally {
      agent.destroy();
      server.kill('SIGTERM');
      await new Promise((r) => server.once('exit', r));
    }
  });
}

main().catch((e) => {
  console.error('soak failed:', e);
  process.exit(1);
});
