/**
 * npm run bench:engine — the Daml engine in the submission pipeline, on Canton's ping DAR
 * (`canton/canton-builtin-admin-workflow-ping.dar` of LEDGERLINE_CONFORMANCE_DARS):
 * - POST /v2/commands/submit-and-wait of a generic-model create (a template of a package not stored), of an engine
 *   create (`Canton.Internal.Ping:Ping`, typed argument, signatories/observers evaluated) and of one `Respond` exercise
 *   (each on a Ping created before the window), at BENCH_CONCURRENCY clients, in BENCH_ROUNDS interleaved rounds; each
 *   ratio is against the generic create of its round, and the median of the rounds is the figure (goal ≥ 0.8×);
 * - in the same rounds, token-standard transfers on Splice's test token (`splice/splice-test-token-v1-1.0.0.dar`):
 *   `TransferFactory_Transfer` by interface id with the admin's `TokenRules` disclosed, then the receiver's
 *   `TransferInstruction_Accept` (two submissions; bench/lib/token-transfer.ts), as transfers/s against the generic
 *   create of the round (skipped, with a banner, when that DAR is not in the folder);
 * - in the same rounds, Amulet transfers on Splice's Canton Coin (`splice/splice-amulet-0.1.22.dar`): `TransferFactory_Transfer`
 *   on the DSO's `ExternalPartyAmuletRules` with the receiver's `TransferPreapproval` in the choice context and the
 *   registry's contracts disclosed, completing in one submission (bench/lib/amulet-transfer.ts), as transfers/s against
 *   the generic create of the round (skipped, with a banner, when that DAR is not in the folder);
 * - in the same rounds, whole Bong rounds (`Canton.Internal.Bong`, as Bong.daml's explodeScript runs it at maxLevel 1:
 *   proposal, Accept, ProcessExplode, ProcessMerge, Ack — five submissions, BONG_ROUND_NODES committed nodes), one
 *   round per client at a time: the time per committed node beside the generic create's time per (one-node) create;
 * - a fold over a 100,000-element list passed through HTTP (BENCH_FOLD_LENGTH): the `ledgerline-fold` package of
 *   testkit/fold-package.ts, built here from LF text with our encoder; each choice (FOLDL, FOLDR, a recursive LF
 *   function) is checked once for the right sum (no stack failure), then timed through submit-and-wait, one client;
 * - decoding `splice-amulet-0.1.22.dar` and `splice-amulet-0.1.14.dar` (main package and dependencies): cold (the first
 *   decode in this process), warm (median of BENCH_DECODE_ROUNDS later decodes), a package-cache hit, and the heap one
 *   decoded copy holds (growth when a second copy is kept).
 *
 * The service runs as a child process on a throwaway database. Knobs: LEDGERLINE_CONFORMANCE_DARS (required),
 * BENCH_DATABASE_URL, BENCH_CONCURRENCY (default 16), BENCH_ROUNDS (default 3), BENCH_DURATION_MS (default 4000),
 * BENCH_WARMUP_MS (default 2000), BENCH_FOLD_LENGTH (default 100000), BENCH_FOLD_RUNS (default 3),
 * BENCH_DECODE_ROUNDS (default 5), BENCH_SERVER_NODE_ARGS. Run with --expose-gc for the memory figure.
 */
import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { mintHs256Token } from '@ledgerline/auth';
import { openDatabase } from '@ledgerline/store';
import { PackageCache, decodeDar } from '@ledgerline/daml-lf';
import { loadParticipantIdentity } from '@ledgerline/server/infrastructure/participant-identity';
import { envInt, fmt, printTable, runConcurrent, serverNodeArgs, withBenchDatabase, type RunResult } from './lib';
import { closeFastFetch, fastFetch } from './lib/http-client';
import { FOLD_CHOICES, foldArgument, foldPackageDar } from '../testkit/fold-package';
import { setUpTokenTransfers, tokenDar, TOKEN_DAR, type TokenTransfers } from './lib/token-transfer';
import { AMULET_DAR, amuletDar, setUpAmuletTransfers, type AmuletTransfers } from './lib/amulet-transfer';

const concurrency = envInt('BENCH_CONCURRENCY', 16);
const durationMs = envInt('BENCH_DURATION_MS', 4000);
const warmupMs = envInt('BENCH_WARMUP_MS', 2000);
const decodeRounds = envInt('BENCH_DECODE_ROUNDS', 5);
const roundCount = envInt('BENCH_ROUNDS', 3);
const foldLength = envInt('BENCH_FOLD_LENGTH', 100_000);
const foldRuns = envInt('BENCH_FOLD_RUNS', 3);
const SECRET = 'bench-secret-bench-secret-bench';
const PORT = 19000 + Math.floor(Math.random() * 1000);
const USER = 'bench-app';
const PING_PKG = 'de2cc2f90eb523414ff54e899951dadd8789a4c07e0f71f6d6c9eaf57d412a54';
const PING = `${PING_PKG}:Canton.Internal.Ping:Ping`;
const BONG = (entity: string) => `${PING_PKG}:Canton.Internal.Bong:${entity}`;
/**
 * Nodes a Bong round commits: the proposal (1); Accept and its Explode (2); ProcessExplode and its Merge and two
 * Collapses (4); ProcessMerge, its two fetches, two ProcessCollapse exercises and the Bong (6); Ack (1).
 */
const BONG_ROUND_NODES = 14;

function darsRoot(): string {
  const root = process.env.LEDGERLINE_CONFORMANCE_DARS;
  if (!root || !fs.existsSync(root))
    throw new Error('LEDGERLINE_CONFORMANCE_DARS must name the folder of real DARs (e.g. ../shared/dars)');
  return path.resolve(root);
}

async function call(
  method: string,
  pathname: string,
  token: string | undefined,
  body?: unknown,
  raw?: Buffer,
): Promise<{ status: number; text: string }> {
  const res = await fastFetch(`http://127.0.0.1:${PORT}${pathname}`, {
    method,
    headers: {
      'content-type': raw ? 'application/octet-stream' : 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
  return { status: res.status, text: await res.text() };
}

async function ok(method: string, pathname: string, token: string, body?: unknown, raw?: Buffer): Promise<any> {
  const r = await call(method, pathname, token, body, raw);
  if (r.status !== 200) throw new Error(`${method} ${pathname}: ${r.status} ${r.text}`);
  return JSON.parse(r.text);
}

async function startServer(url: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...serverNodeArgs(), path.resolve(__dirname, '../apps/server/src/main.js')], {
    env: {
      ...process.env,
      DATABASE_URL: url,
      PORT: String(PORT),
      LEDGER_GRPC_PORT: 'off',
      HOST: '127.0.0.1',
      LEDGER_JWT_SECRET: SECRET,
      LEDGER_LOG_LEVEL: 'warn',
      LEDGER_DB_POOL_SIZE: '8',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      if ((await call('GET', '/livez', undefined)).status < 500) return child;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error('server did not start');
}

async function submitBench(root: string): Promise<void> {
  await withBenchDatabase({ label: 'engine', migrate: true }, async ({ url }) => {
    const server = await startServer(url);
    try {
      const database = openDatabase(url, { max: 2 });
      const identity = await loadParticipantIdentity(database.db, 'participant1', ['global', 'secondary']);
      await database.close();
      const sync = identity.defaultSynchronizer.id;
      const admin = await mintHs256Token({
        secret: SECRET,
        userId: 'participant_admin',
        participantId: identity.participantId,
      });
      await ok(
        'POST',
        `/v2/dars?vetAllPackages=true&synchronizerId=${encodeURIComponent(sync)}`,
        admin,
        undefined,
        fs.readFileSync(path.join(root, 'canton/canton-builtin-admin-workflow-ping.dar')),
      );
      const initiators: string[] = [];
      const responders: string[] = [];
      for (let i = 0; i < concurrency; i++) {
        initiators.push(
          (await ok('POST', '/v2/parties', admin, { partyIdHint: `init-${i}`, synchronizerId: sync })).partyDetails
            .party,
        );
        responders.push(
          (await ok('POST', '/v2/parties', admin, { partyIdHint: `resp-${i}`, synchronizerId: sync })).partyDetails
            .party,
        );
      }
      await ok('POST', '/v2/users', admin, {
        user: { id: USER, primaryParty: '' },
        rights: [{ kind: { CanActAsAnyParty: { value: {} } } }],
      });
      const token = await mintHs256Token({
        secret: SECRET,
        userId: USER,
        participantId: identity.participantId,
        expiresInSeconds: 3600,
      });

      const fold = await foldPackageDar();
      await ok(
        'POST',
        `/v2/dars?vetAllPackages=true&synchronizerId=${encodeURIComponent(sync)}`,
        admin,
        undefined,
        fold.dar,
      );

      let seq = 0;
      const tokenFile = tokenDar(root);
      let tokens: TokenTransfers | undefined;
      if ('dar' in tokenFile) {
        await ok(
          'POST',
          `/v2/dars?vetAllPackages=true&synchronizerId=${encodeURIComponent(sync)}`,
          admin,
          undefined,
          tokenFile.dar,
        );
        const tokenAdmin = (
          await ok('POST', '/v2/parties', admin, { partyIdHint: 'token-admin', synchronizerId: sync })
        ).partyDetails.party;
        tokens = await setUpTokenTransfers(
          (method, pathname, body) => ok(method, pathname, token, body),
          sync,
          tokenAdmin,
          initiators,
          responders,
          () => seq++,
        );
      } else {
        console.log(`\n!!!!! SKIPPED: token-standard transfers (${TOKEN_DAR}): ${tokenFile.skipped} !!!!!\n`);
      }
      const amuletFile = amuletDar(root);
      let amulets: AmuletTransfers | undefined;
      if ('dar' in amuletFile) {
        await ok(
          'POST',
          `/v2/dars?vetAllPackages=true&synchronizerId=${encodeURIComponent(sync)}`,
          admin,
          undefined,
          amuletFile.dar,
        );
        const dso = (await ok('POST', '/v2/parties', admin, { partyIdHint: 'dso', synchronizerId: sync })).partyDetails
          .party;
        const provider = (await ok('POST', '/v2/parties', admin, { partyIdHint: 'validator', synchronizerId: sync }))
          .partyDetails.party;
        amulets = await setUpAmuletTransfers(
          (method, pathname, body) => ok(method, pathname, token, body),
          sync,
          { dso, provider },
          initiators,
          responders,
          () => seq++,
        );
      } else {
        console.log(`\n!!!!! SKIPPED: Amulet transfers (${AMULET_DAR}): ${amuletFile.skipped} !!!!!\n`);
      }
      const submit = async (
        pathname: string,
        command: unknown,
        actAs: string,
        transactionFormat?: unknown,
      ): Promise<any> => {
        const commands = { commands: [command], commandId: `engine-bench-${seq++}`, actAs: [actAs], userId: USER };
        return ok(
          'POST',
          pathname,
          token,
          pathname.endsWith('-for-transaction')
            ? { commands, ...(transactionFormat ? { transactionFormat } : {}) }
            : commands,
        );
      };
      const ping = (w: number, i: number) => ({
        CreateCommand: {
          templateId: PING,
          createArguments: { id: `ping-${i}`, initiator: initiators[w], responder: responders[w] },
        },
      });
      const generic = (w: number, i: number) => ({
        CreateCommand: { templateId: '#bench:Main:Note', createArguments: { owner: initiators[w], n: i } },
      });
      const bongRound = (w: number, i: number) => runBongRound(submit, initiators[w], responders[w], `bong-${i}`);

      const measure = async (op: (w: number, i: number) => Promise<unknown>): Promise<RunResult> => {
        const r = await runConcurrent({ concurrency, durationMs, warmupMs, op });
        if (r.errors) throw new Error(`${r.errors} operations failed: ${String(r.firstError)}`);
        return r;
      };

      // The server's first requests pay JIT warm-up: one unmeasured run of each kind before the windows.
      await runConcurrent({
        concurrency,
        durationMs: warmupMs,
        op: (w, i) => submit('/v2/commands/submit-and-wait', generic(w, i), initiators[w]),
      });
      await runConcurrent({
        concurrency,
        durationMs: warmupMs,
        op: (w, i) => submit('/v2/commands/submit-and-wait', ping(w, i), initiators[w]),
      });
      await runConcurrent({ concurrency, durationMs: warmupMs, op: bongRound });
      if (tokens) await runConcurrent({ concurrency, durationMs: warmupMs, op: (w) => tokens.transfer(w) });
      if (amulets) await runConcurrent({ concurrency, durationMs: warmupMs, op: (w) => amulets.transfer(w) });
      // Interleaved rounds (generic create, engine create, Respond, Bong rounds): each ratio is against the generic create of its round.
      type Round = {
        generic: RunResult;
        create: RunResult;
        respond: RunResult;
        bong: RunResult;
        token?: RunResult;
        amulet?: RunResult;
      };
      const rounds: Round[] = [];
      for (let round = 0; round < roundCount; round++) {
        const genericRun = await measure((w, i) =>
          submit('/v2/commands/submit-and-wait', generic(w, i), initiators[w]),
        );
        const create = await measure((w, i) => submit('/v2/commands/submit-and-wait', ping(w, i), initiators[w]));
        // Pings to respond to, created before the window: enough for the warm-up and the window at 3× the faster create rate.
        const needed =
          Math.ceil(
            (Math.max(create.opsPerSec, genericRun.opsPerSec) * (durationMs + warmupMs) * 3) / 1000 / concurrency,
          ) + 20;
        const pool: string[][] = Array.from({ length: concurrency }, () => []);
        await Promise.all(
          pool.map(async (mine, w) => {
            for (let k = 0; k < needed; k++) {
              const tx = await submit('/v2/commands/submit-and-wait-for-transaction', ping(w, seq), initiators[w]);
              mine.push(tx.transaction.events[0].CreatedEvent.contractId);
            }
          }),
        );
        const respond = await measure((w) => {
          const cid = pool[w].pop();
          if (!cid) throw new Error('ran out of Pings to respond to');
          return submit(
            '/v2/commands/submit-and-wait',
            { ExerciseCommand: { templateId: PING, contractId: cid, choice: 'Respond', choiceArgument: {} } },
            responders[w],
          );
        });
        const bong = await measure(bongRound);
        const tokenRun = tokens ? await measure((w) => tokens.transfer(w)) : undefined;
        const amuletRun = amulets ? await measure((w) => amulets.transfer(w)) : undefined;
        rounds.push({ generic: genericRun, create, respond, bong, token: tokenRun, amulet: amuletRun });
      }

      console.log(
        `\nsubmit-and-wait at ${concurrency} clients, ${roundCount} interleaved rounds of ${durationMs} ms windows after ${warmupMs} ms warm-up (ping DAR on the engine)`,
      );
      const rows: Array<Array<string | number>> = [
        ['operation', 'round', 'ops/s', 'p50 ms', 'p99 ms', '× generic create'],
      ];
      rounds.forEach((r, i) => {
        const base = r.generic.opsPerSec;
        for (const [label, run] of [
          ['generic-model create', r.generic],
          ['engine create (Ping)', r.create],
          ['engine exercise (Ping Respond)', r.respond],
        ] as const)
          rows.push([label, String(i + 1), run.opsPerSec, run.latency.p50, run.latency.p99, run.opsPerSec / base]);
      });
      printTable(rows);
      const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
      const createRatio = median(rounds.map((r) => r.create.opsPerSec / r.generic.opsPerSec));
      const respondRatio = median(rounds.map((r) => r.respond.opsPerSec / r.generic.opsPerSec));
      console.log(
        `goal ≥ 0.8× (median of the rounds): engine create ${fmt(createRatio)}×, Respond ${fmt(respondRatio)}×`,
      );

      console.log(
        `\nBong rounds (5 submissions, ${BONG_ROUND_NODES} committed nodes each), one per client at a time, beside the generic create of the same round`,
      );
      const bongRows: Array<Array<string | number>> = [
        [
          'round',
          'Bong rounds/s',
          'round p50 ms',
          'nodes/s',
          'µs per node',
          'generic creates/s',
          'µs per generic create',
          'nodes/s ÷ creates/s',
        ],
      ];
      rounds.forEach((r, i) => {
        const nodesPerSec = r.bong.opsPerSec * BONG_ROUND_NODES;
        bongRows.push([
          String(i + 1),
          r.bong.opsPerSec,
          r.bong.latency.p50,
          nodesPerSec,
          1e6 / nodesPerSec,
          r.generic.opsPerSec,
          1e6 / r.generic.opsPerSec,
          nodesPerSec / r.generic.opsPerSec,
        ]);
      });
      printTable(bongRows);
      console.log(
        `per committed node (median of the rounds): ${fmt(median(rounds.map((r) => (r.bong.opsPerSec * BONG_ROUND_NODES) / r.generic.opsPerSec)))}× the generic create's rate`,
      );

      if (tokens) {
        console.log(
          '\ntoken-standard transfers (TransferFactory_Transfer with the disclosed TokenRules, then TransferInstruction_Accept: two submissions), beside the generic create of the same round',
        );
        const tokenRows: Array<Array<string | number>> = [
          [
            'round',
            'transfers/s',
            'transfer p50 ms',
            'transfer p99 ms',
            'generic creates/s',
            'transfers/s ÷ creates/s',
          ],
        ];
        rounds.forEach((r, i) =>
          tokenRows.push([
            String(i + 1),
            r.token!.opsPerSec,
            r.token!.latency.p50,
            r.token!.latency.p99,
            r.generic.opsPerSec,
            r.token!.opsPerSec / r.generic.opsPerSec,
          ]),
        );
        printTable(tokenRows);
        console.log(
          `token-standard transfers (median of the rounds): ${fmt(median(rounds.map((r) => r.token!.opsPerSec / r.generic.opsPerSec)))}× the generic create's rate`,
        );
      } else {
        console.log(
          `\n!!!!! SKIPPED: token-standard transfers (${TOKEN_DAR} not in LEDGERLINE_CONFORMANCE_DARS) !!!!!`,
        );
      }

      if (amulets) {
        console.log(
          '\nAmulet transfers (TransferFactory_Transfer with the receiver’s TransferPreapproval in the context: one submission), beside the generic create of the same round',
        );
        const amuletRows: Array<Array<string | number>> = [
          [
            'round',
            'transfers/s',
            'transfer p50 ms',
            'transfer p99 ms',
            'generic creates/s',
            'transfers/s ÷ creates/s',
          ],
        ];
        rounds.forEach((r, i) =>
          amuletRows.push([
            String(i + 1),
            r.amulet!.opsPerSec,
            r.amulet!.latency.p50,
            r.amulet!.latency.p99,
            r.generic.opsPerSec,
            r.amulet!.opsPerSec / r.generic.opsPerSec,
          ]),
        );
        printTable(amuletRows);
        console.log(
          `Amulet transfers (median of the rounds): ${fmt(median(rounds.map((r) => r.amulet!.opsPerSec / r.generic.opsPerSec)))}× the generic create's rate`,
        );
      } else {
        console.log(`\n!!!!! SKIPPED: Amulet transfers (${AMULET_DAR} not in LEDGERLINE_CONFORMANCE_DARS) !!!!!`);
      }

      await foldBench(submit, initiators[0], fold.main.packageId);
      await closeFastFetch();
    } finally {
      server.kill('SIGTERM');
      await new Promise((r) => server.once('exit', r));
    }
  });
}

type Submit = (pathname: string, command: unknown, actAs: string, transactionFormat?: unknown) => Promise<any>;

/** The contract ids a submit-and-wait-for-transaction answer shows created from `templateId`, in node order. */
function createdIds(answer: any, templateId: string): string[] {
  return answer.transaction.events
    .filter((e: any) => e.CreatedEvent?.templateId === templateId)
    .map((e: any) => e.CreatedEvent.contractId as string);
}

/** One Bong round as Bong.daml's explodeScript runs it (maxLevel 1, the initiator its only candidate, one responder). */
async function runBongRound(submit: Submit, initiator: string, responder: string, id: string): Promise<void> {
  const exercise = (entity: string, contractId: string, choice: string, choiceArgument: unknown) => ({
    ExerciseCommand: { templateId: BONG(entity), contractId, choice, choiceArgument },
  });
  const withTx = '/v2/commands/submit-and-wait-for-transaction';
  const proposal = await submit(
    withTx,
    {
      CreateCommand: {
        templateId: BONG('BongProposal'),
        createArguments: {
          id,
          initiator,
          candidates: [initiator],
          validators: [],
          responders: [responder],
          maxLevel: '1',
          timeout: '2030-01-01T00:00:00Z',
        },
      },
    },
    initiator,
  );
  const accepted = await submit(
    withTx,
    exercise('BongProposal', createdIds(proposal, BONG('BongProposal'))[0], 'Accept', { validator: initiator }),
    initiator,
  );
  const exploded = await submit(
    withTx,
    exercise('Explode', createdIds(accepted, BONG('Explode'))[0], 'ProcessExplode', { winner: responder }),
    responder,
  );
  const [leftId, rightId] = createdIds(exploded, BONG('Collapse'));
  const merged = await submit(
    withTx,
    exercise('Merge', createdIds(exploded, BONG('Merge'))[0], 'ProcessMerge', { winner: responder, leftId, rightId }),
    responder,
  );
  await submit(
    '/v2/commands/submit-and-wait',
    exercise('Bong', createdIds(merged, BONG('Bong'))[0], 'Ack', {}),
    initiator,
  );
}

/** Each fold choice on a list of `foldLength` elements: once checked for its sum, then timed `foldRuns` times. */
async function foldBench(submit: Submit, owner: string, pkg: string): Promise<void> {
  const templateId = `${pkg}:Main:Folder`;
  const folder = createdIds(
    await submit(
      '/v2/commands/submit-and-wait-for-transaction',
      { CreateCommand: { templateId, createArguments: { owner } } },
      owner,
    ),
    templateId,
  )[0];
  const { argument, sum } = foldArgument(foldLength);
  const body = JSON.stringify(argument).length;
  const rows: Array<Array<string | number>> = [['choice', 'result', 'median ms', 'min ms', 'max ms']];
  const effects = {
    eventFormat: { filtersByParty: { [owner]: { cumulative: [] } }, verbose: true },
    transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
  };
  for (const choice of FOLD_CHOICES) {
    const command = { ExerciseCommand: { templateId, contractId: folder, choice, choiceArgument: argument } };
    const checked = await submit('/v2/commands/submit-and-wait-for-transaction', command, owner, effects);
    const result = checked.transaction.events[0].ExercisedEvent.exerciseResult;
    if (result !== sum) throw new Error(`${choice}: ${String(result)}, expected ${sum}`);
    const times: number[] = [];
    for (let i = 0; i < foldRuns; i++) {
      const t = performance.now();
      await submit('/v2/commands/submit-and-wait', command, owner);
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    rows.push([choice, `${sum} ✓`, times[Math.floor(times.length / 2)], times[0], times[times.length - 1]]);
  }
  console.log(
    `\nfold over a ${foldLength.toLocaleString('en')}-element list (choice argument of ${(body / 1e6).toFixed(2)} MB JSON) via submit-and-wait, one client, ${foldRuns} runs each after a checked run`,
  );
  printTable(rows);
}

async function decodeBench(root: string): Promise<void> {
  const rows: Array<Array<string | number>> = [
    ['DAR', 'packages', 'cold ms', 'warm ms (median)', 'cache hit µs', 'heap MB'],
  ];
  // One function call per DAR: a suspended async frame would keep the previous DAR's packages alive.
  for (const name of ['splice-amulet-0.1.22.dar', 'splice-amulet-0.1.14.dar']) rows.push(await decodeOne(root, name));
  console.log(
    `\ndecoding (whole DAR: main package and dependencies); cold = first decode in this process, warm = median of ${decodeRounds}`,
  );
  printTable(rows);
  if (!(globalThis as { gc?: unknown }).gc) console.log('(heap MB needs node --expose-gc)');
}

async function decodeOne(root: string, name: string): Promise<Array<string | number>> {
  const bytes = fs.readFileSync(path.join(root, 'splice', name));
  let t = performance.now();
  const first = await decodeDar(bytes);
  const cold = performance.now() - t;
  const archives = [first.main, ...first.dependencies];
  if (!first.main.package.modules.size) throw new Error(`${name}: no modules decoded`);
  const cache = new PackageCache();
  for (const a of archives) cache.add(a.package);
  const ids = cache.ids();
  t = performance.now();
  for (const id of ids) if (!cache.get(id)) throw new Error('cache miss');
  const hitUs = ((performance.now() - t) * 1000) / ids.length;
  // The heap a decoded copy holds: the growth when a second copy is decoded and kept (both after a full GC).
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const heap1 = process.memoryUsage().heapUsed;
  const second = await decodeDar(bytes);
  gc?.();
  const heapMb = gc ? (process.memoryUsage().heapUsed - heap1) / 1e6 : NaN;
  if (second.main.package.id !== first.main.package.id) throw new Error('decoded differently');
  const warm: number[] = [];
  for (let i = 0; i < decodeRounds; i++) {
    t = performance.now();
    await decodeDar(bytes);
    warm.push(performance.now() - t);
  }
  warm.sort((a, b) => a - b);
  return [name, ids.length, cold, warm[Math.floor(warm.length / 2)], hitUs, heapMb];
}

async function main(): Promise<void> {
  const root = darsRoot();
  // Decoding first, in a process that has decoded nothing yet (cold means cold).
  await decodeBench(root);
  await submitBench(root);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
