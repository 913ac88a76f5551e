import { sql, type Kysely } from 'kysely';
import { expect } from 'vitest';
import { sign } from 'node:crypto';
import { dumpProjections, rebuildProjections, type DB } from '@ledgerline/store';
import {
  createNode,
  executeRequest,
  exerciseNode,
  externalParty,
  freshContractId,
  preparedTransaction,
  type ExternalParty,
} from '../../testkit/external-signing';
import { TEST_JWT_SECRET } from './ledger';
import { scopeToken } from './server-process';
import { waitFor } from './wait-for';

/**
 * A mixed write load for fault tests (crash/restart, database outage, two instances), driven over HTTP against server
 * child processes: externally signed creates and archives (executeAndWait), reassignment round trips (unassign, then
 * assign), PATCH of a local party's annotations and asynchronous command submissions of the local party (async/submit,
 * answered `{}`, whose outcome is its completion). Every acknowledged (HTTP 200) write is recorded with what identifies
 * it in the log (update id + offset, or the party's resource version), every attempt with its command id, so that the
 * checks below can tell "acknowledged → there exactly once" and "unacknowledged → all there or not at all".
 */

export const LOAD_USER = 'fault-load';
export const EXEC = '/v2/interactive-submission/executeAndWait';
export const EXEC_FOR_TRANSACTION = '/v2/interactive-submission/executeAndWaitForTransaction';
export const REASSIGN = '/v2/commands/submit-and-wait-for-reassignment';
export const ASYNC_SUBMIT = '/v2/commands/async/submit';

export interface LoadSetup {
  token: string;
  adminToken: string;
  owner: string;
  syncs: [string, string];
  parties: ExternalParty[];
}

export interface Ack {
  kind: 'create' | 'archive' | 'unassign' | 'assign' | 'patch' | 'async';
  round: number;
  commandId?: string;
  updateId?: string;
  offset?: number;
  resourceVersion?: number;
  annotation?: string;
  contractId?: string;
  /** performance.now() when the 200 arrived. */
  at: number;
  url: string;
}

export interface CallResult {
  status: number;
  json: any;
}

/** fetch with a hard timeout; a network failure (server gone) throws. */
export async function call(
  url: string,
  method: string,
  path: string,
  token: string | null,
  body?: unknown,
  timeoutMs = 30_000,
): Promise<CallResult> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {
    /* text/plain */
  }
  return { status: res.status, json };
}

/** Local owner party (PATCHed and reassigning), one external party per worker with its key, and a user for all of it. */
export async function setupLoad(url: string, workers: number, tag = 'f'): Promise<LoadSetup> {
  const adminToken = await scopeToken('participant_admin', TEST_JWT_SECRET);
  const syncsRes = await call(url, 'GET', '/v2/state/connected-synchronizers', adminToken);
  const syncs = syncsRes.json.connectedSynchronizers.map((s: any) => s.synchronizerId) as string[];
  const alloc = await call(url, 'POST', '/v2/parties', adminToken, {
    partyIdHint: `${tag}-owner`,
    identityProviderId: '',
    synchronizerId: syncs[0],
  });
  if (alloc.status !== 200) throw new Error(`allocate: ${alloc.status} ${JSON.stringify(alloc.json)}`);
  const owner = alloc.json.partyDetails.party as string;
  // External parties onboarded as a wallet does (generate-topology, sign the multi-hash, allocate): their keys are in the log.
  const parties: ExternalParty[] = [];
  for (let i = 0; i < workers; i++) {
    const k = externalParty(`${tag}-ext-${i}`);
    const gen = await call(url, 'POST', '/v2/parties/external/generate-topology', adminToken, {
      synchronizer: syncs[0],
      partyHint: `${tag}-ext-${i}`,
      publicKey: {
        format: 'CRYPTO_KEY_FORMAT_RAW',
        keyData: k.rawPublicKey.toString('base64'),
        keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519',
      },
    });
    if (gen.status !== 200) throw new Error(`generate-topology: ${gen.status} ${JSON.stringify(gen.json)}`);
    const { partyId, publicKeyFingerprint, topologyTransactions, multiHash } = gen.json;
    const allocated = await call(url, 'POST', '/v2/parties/external/allocate', adminToken, {
      synchronizer: syncs[0],
      onboardingTransactions: topologyTransactions.map((transaction: string) => ({ transaction })),
      multiHashSignatures: [
        {
          format: 'SIGNATURE_FORMAT_CONCAT',
          signature: sign(null, Buffer.from(multiHash, 'base64'), k.privateKey).toString('base64'),
          signedBy: publicKeyFingerprint,
          signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ED25519',
        },
      ],
    });
    if (allocated.status !== 200)
      throw new Error(`allocate external: ${allocated.status} ${JSON.stringify(allocated.json)}`);
    parties.push({ ...k, party: partyId, fingerprint: publicKeyFingerprint });
  }
  const user = await call(url, 'POST', '/v2/users', adminToken, {
    user: { id: LOAD_USER, primaryParty: '' },
    rights: [{ kind: { CanExecuteAsAnyParty: { value: {} } } }, { kind: { CanActAs: { value: { party: owner } } } }],
  });
  if (user.status !== 200) throw new Error(`user: ${user.status} ${JSON.stringify(user.json)}`);
  return {
    token: await scopeToken(LOAD_USER, TEST_JWT_SECRET),
    adminToken,
    owner,
    syncs: [syncs[0], syncs[1]],
    parties,
  };
}

interface Held {
  cid: string;
  sync: string;
}

/** The mixed load. `run` drives `workers` loops until `stop()` or until a worker's server goes away. */
export class MixedLoad {
  readonly acks: Ack[] = [];
  /** Command ids (executes, reassignments) and annotation keys (patches) of every attempt. */
  readonly attempted = new Set<string>();
  /** Answers other than 200, by status and error code (a network failure is not an answer). */
  readonly failures = new Map<string, number>();
  round = 0;
  private seq = 0;
  private stopped = false;
  private readonly held: Held[][];

  constructor(
    private readonly setup: LoadSetup,
    private readonly opts: {
      archiveShare?: number;
      reassignShare?: number;
      patchShare?: number;
      asyncShare?: number;
      pauseMs?: number;
    } = {},
  ) {
    this.held = setup.parties.map(() => []);
  }

  stop(): void {
    this.stopped = true;
  }

  /**
   * Resolves once `n` writes are acknowledged among `acks[since…]` (those matching `which`): a load window counted in
   * writes, not in time, so a slow machine gets the same load and a fast one does not wait. Fails after `timeoutMs`.
   */
  async acknowledged(
    n: number,
    {
      since = 0,
      which = () => true,
      timeoutMs = 60_000,
    }: { since?: number; which?: (a: Ack) => boolean; timeoutMs?: number } = {},
  ): Promise<void> {
    const count = () => {
      let found = 0;
      for (let i = since; i < this.acks.length; i++) if (which(this.acks[i])) found++;
      return found;
    };
    await waitFor(() => count() >= n, { timeoutMs, intervalMs: 10, message: `${n} acknowledged writes` });
  }

  /** Runs until stopped; workers whose server fails at the network level end. `urls[w % urls.length]` serves worker w. */
  async run(urls: string[], opts: { onNetworkError?: 'stop' | 'retry' } = {}): Promise<void> {
    this.stopped = false;
    await Promise.all(
      this.setup.parties.map(async (_, w) => {
        while (!this.stopped) {
          try {
            await this.step(w, urls[w % urls.length]);
          } catch {
            if ((opts.onNetworkError ?? 'stop') === 'stop') return;
            await new Promise((r) => setTimeout(r, 20));
          }
          if (this.opts.pauseMs) await new Promise((r) => setTimeout(r, this.opts.pauseMs));
        }
      }),
    );
  }

  /** After a crash the workers' view is stale: take the contracts each party holds from the (consistent) database. */
  async resync(db: Kysely<DB>): Promise<void> {
    for (let w = 0; w < this.held.length; w++) {
      const rows = await db
        .selectFrom('contracts')
        .select(['contract_id', 'synchronizer_id'])
        .where('status', '=', 'active')
        .where(sql<boolean>`signatories @> ARRAY[${this.setup.parties[w].party}]::text[]`)
        .execute();
      this.held[w] = rows.map((r) => ({ cid: r.contract_id, sync: r.synchronizer_id! }));
    }
  }

  private fail(r: CallResult): void {
    const key = `${r.status} ${r.json?.code ?? ''}`;
    this.failures.set(key, (this.failures.get(key) ?? 0) + 1);
  }

  private async step(w: number, url: string): Promise<void> {
    const { token, owner, syncs } = this.setup;
    const party = this.setup.parties[w];
    const held = this.held[w];
    const dice = Math.random();
    const archiveShare = this.opts.archiveShare ?? 0.2;
    const reassignShare = this.opts.reassignShare ?? 0.25;
    const patchShare = this.opts.patchShare ?? 0.15;
    const asyncShare = this.opts.asyncShare ?? 0.1;
    const n = ++this.seq;
    const stakeholders = [party.party, owner];
    if (held.length > 0 && dice < archiveShare) {
      const [c] = held.splice(Math.floor(Math.random() * held.length), 1);
      const commandId = `arch-${w}-${n}`;
      const pt = preparedTransaction({
        nodes: [
          exerciseNode('0', {
            contractId: c.cid,
            signatories: [party.party],
            stakeholders,
            actingParties: [party.party],
          }),
        ],
        actAs: [party.party],
        synchronizerId: c.sync,
        commandId,
      });
      this.attempted.add(commandId);
      const r = await call(url, 'POST', EXEC, token, executeRequest(pt, [party]));
      if (r.status !== 200) return this.fail(r);
      this.acks.push({
        kind: 'archive',
        round: this.round,
        commandId,
        updateId: r.json.updateId,
        offset: r.json.completionOffset,
        contractId: c.cid,
        at: performance.now(),
        url,
      });
    } else if (held.length > 0 && dice < archiveShare + reassignShare) {
      const [c] = held.splice(Math.floor(Math.random() * held.length), 1);
      const [source, target] = c.sync === syncs[0] ? syncs : [syncs[1], syncs[0]];
      const unassignId = `un-${w}-${n}`;
      this.attempted.add(unassignId);
      const u = await call(
        url,
        'POST',
        REASSIGN,
        token,
        reassignBody(unassignId, owner, { UnassignCommand: { value: { contractId: c.cid, source, target } } }),
      );
      if (u.status !== 200) return this.fail(u);
      const reassignmentId = u.json.reassignment.events[0].JsUnassignedEvent.value.reassignmentId as string;
      this.acks.push({
        kind: 'unassign',
        round: this.round,
        commandId: unassignId,
        updateId: u.json.reassignment.updateId,
        offset: u.json.reassignment.offset,
        contractId: c.cid,
        at: performance.now(),
        url,
      });
      const assignId = `as-${w}-${n}`;
      this.attempted.add(assignId);
      const a = await call(
        url,
        'POST',
        REASSIGN,
        token,
        reassignBody(assignId, owner, { AssignCommand: { value: { reassignmentId, source, target } } }),
      );
      if (a.status !== 200) return this.fail(a);
      this.acks.push({
        kind: 'assign',
        round: this.round,
        commandId: assignId,
        updateId: a.json.reassignment.updateId,
        offset: a.json.reassignment.offset,
        contractId: c.cid,
        at: performance.now(),
        url,
      });
      held.push({ cid: c.cid, sync: target });
    } else if (dice < archiveShare + reassignShare + patchShare) {
      const annotation = `k${w}-${n}`;
      this.attempted.add(annotation);
      const r = await call(url, 'PATCH', `/v2/parties/${encodeURIComponent(owner)}`, this.setup.adminToken, {
        partyDetails: { party: owner, localMetadata: { annotations: { [annotation]: String(n) } } },
        updateMask: { paths: ['local_metadata.annotations'] },
      });
      if (r.status !== 200) return this.fail(r);
      this.acks.push({
        kind: 'patch',
        round: this.round,
        resourceVersion: Number(r.json.partyDetails.localMetadata.resourceVersion),
        annotation,
        at: performance.now(),
        url,
      });
    } else if (dice < archiveShare + reassignShare + patchShare + asyncShare) {
      const commandId = `asy-${w}-${n}`;
      this.attempted.add(commandId);
      const r = await call(url, 'POST', ASYNC_SUBMIT, token, {
        commands: [{ CreateCommand: { templateId: '#fault:Main:Note', createArguments: { owner, n } } }],
        commandId,
        actAs: [owner],
      });
      if (r.status !== 200) return this.fail(r);
      this.acks.push({ kind: 'async', round: this.round, commandId, at: performance.now(), url });
    } else {
      const commandId = `cre-${w}-${n}`;
      const cid = freshContractId();
      const sync = syncs[0];
      const pt = preparedTransaction({
        nodes: [createNode('0', { contractId: cid, signatories: [party.party], stakeholders })],
        actAs: [party.party],
        synchronizerId: sync,
        commandId,
      });
      this.attempted.add(commandId);
      // The transaction's answer names the committed id (the prepared local id with Canton's suffix).
      const r = await call(url, 'POST', EXEC_FOR_TRANSACTION, token, executeRequest(pt, [party]));
      if (r.status !== 200) return this.fail(r);
      const tx = r.json.transaction as {
        updateId: string;
        offset: number;
        events: Array<{ CreatedEvent?: { contractId: string } }>;
      };
      const committed =
        tx.events.find((e) => e.CreatedEvent?.contractId.startsWith(cid))?.CreatedEvent?.contractId ?? cid;
      this.acks.push({
        kind: 'create',
        round: this.round,
        commandId,
        updateId: tx.updateId,
        offset: tx.offset,
        contractId: committed,
        at: performance.now(),
        url,
      });
      held.push({ cid: committed, sync });
    }
  }
}

function reassignBody(commandId: string, submitter: string, command: unknown) {
  return {
    reassignmentCommands: { commandId, submitter, commands: [{ command }] },
    eventFormat: { filtersByParty: { [submitter]: { cumulative: [] } } },
  };
}

/**
 * Waits until no backend of a killed server is left on this database (the server's connections carry the application
 * name `ledgerline`; the checking side must use another). A SIGKILLed client's last COMMIT, already sent, is still carried
 * out by its backend after the kill; checking the log before that backend is gone can see the head move in between.
 */
export async function awaitServerBackendsGone(
  db: Kysely<DB>,
  applicationName = 'ledgerline',
  timeoutMs = 15_000,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = ${applicationName} AND pid <> pg_backend_pid()`.execute(
      db,
    );
    if (rows[0].n === 0) return;
    if (Date.now() > until)
      throw new Error(`${rows[0].n} backends of the killed server still connected after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * The log's invariants and the load's guarantees, checked straight on the database:
 * - seq and offsets are 1..N with no gap, the head matches, and every offset is either a ledger update (exactly one
 *   ledger_updates row) or a rejected completion (a CommandRejected event);
 * - every async submission answered `{}` has exactly one completion, and every successful completion's update exists;
 * - every acknowledged write is there exactly once: its update id at its offset with its command id (executes,
 *   reassignments), or its party resource version in exactly one PartyDetailsUpdated event carrying its annotation;
 * - nothing unacknowledged is half-present: a command id is in the log at most once and only if it was attempted, and
 *   every committed annotation key was attempted;
 * - the projections equal a replay of the log (`rebuild: true`; takes the head lock, so run it with no writer running or
 *   accept that it waits for the lock).
 */
export async function verifyLedger(
  db: Kysely<DB>,
  load: MixedLoad,
  setup: LoadSetup,
  opts: { rebuild?: boolean } = {},
): Promise<{ offsets: number; events: number; committedUnacknowledged: number }> {
  const seqs = (await sql<{ seq: number }>`SELECT seq FROM event_log ORDER BY seq`.execute(db)).rows.map((r) =>
    Number(r.seq),
  );
  expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  const offsets = (
    await sql<{
      o: number;
    }>`SELECT ledger_offset AS o FROM event_log WHERE ledger_offset IS NOT NULL ORDER BY seq`.execute(db)
  ).rows.map((r) => Number(r.o));
  expect(offsets).toEqual(offsets.map((_, i) => i + 1));
  const head = (
    await sql<{ seq: number; ledger_offset: number }>`SELECT seq, ledger_offset FROM ledger_head`.execute(db)
  ).rows[0];
  expect({ seq: Number(head.seq), offset: Number(head.ledger_offset) }).toEqual({
    seq: seqs.length,
    offset: offsets.length,
  });
  const updates = await db
    .selectFrom('ledger_updates')
    .select(['ledger_offset', 'update_id', 'command_id'])
    .orderBy('ledger_offset')
    .execute();
  const rejections = (
    await sql<{
      o: number;
    }>`SELECT ledger_offset AS o FROM event_log WHERE type = 'CommandRejected' ORDER BY seq`.execute(db)
  ).rows.map((r) => Number(r.o));
  expect([...updates.map((u) => Number(u.ledger_offset)), ...rejections].sort((a, b) => a - b)).toEqual(offsets);

  // Completions: one per async submission answered {}; a success's update is there.
  const completions = (
    await db.selectFrom('command_completions').select('completion').where('user_id', '=', LOAD_USER).execute()
  ).map((r) => r.completion as { commandId: string; updateId: string; status: { code: number } });
  const completionsOf = new Map<string, number>();
  for (const c of completions) {
    completionsOf.set(c.commandId, (completionsOf.get(c.commandId) ?? 0) + 1);
    if (c.status.code === 0)
      expect(
        updates.some((u) => u.update_id === c.updateId),
        `${c.commandId}'s update`,
      ).toBe(true);
  }
  for (const a of load.acks)
    if (a.kind === 'async') expect(completionsOf.get(a.commandId!), `async ${a.commandId}`).toBe(1);

  const byUpdateId = new Map(updates.map((u) => [u.update_id, u]));
  expect(byUpdateId.size).toBe(updates.length);
  const commandCount = new Map<string, number>();
  for (const u of updates) if (u.command_id) commandCount.set(u.command_id, (commandCount.get(u.command_id) ?? 0) + 1);

  for (const a of load.acks) {
    if (a.kind === 'patch' || a.kind === 'async') continue;
    const row = byUpdateId.get(a.updateId!);
    expect(row, `${a.kind} ${a.commandId} acknowledged at ${a.offset}`).toBeDefined();
    expect({ offset: Number(row!.ledger_offset), commandId: row!.command_id }).toEqual({
      offset: a.offset,
      commandId: a.commandId,
    });
  }
  // Our command ids: attempted, and in the log at most once (acknowledged ones exactly once, by the loop above).
  for (const [commandId, count] of commandCount) {
    if (!/^(cre|arch|un|as|asy)-/.test(commandId)) continue;
    expect(load.attempted.has(commandId), commandId).toBe(true);
    expect(count, commandId).toBe(1);
  }

  // Party patches: one event per resource version, each acknowledged version carries its own annotation.
  const patches = (
    await sql<{
      data: any;
    }>`SELECT data FROM event_log WHERE type = 'PartyDetailsUpdated' AND stream LIKE ${'%' + setup.owner} ORDER BY seq`.execute(
      db,
    )
  ).rows.map((r) => r.data as { resourceVersion: number; annotations: Record<string, string> });
  expect(patches.map((p) => Number(p.resourceVersion))).toEqual(patches.map((_, i) => i + 1));
  for (const a of load.acks) {
    if (a.kind !== 'patch') continue;
    const ev = patches[a.resourceVersion! - 1];
    expect(ev, `patch ${a.annotation} acknowledged as version ${a.resourceVersion}`).toBeDefined();
    expect(Object.keys(ev.annotations)).toContain(a.annotation);
  }
  const last = patches.at(-1)?.annotations ?? {};
  for (const key of Object.keys(last)) expect(load.attempted.has(key), key).toBe(true);
  for (const a of load.acks) if (a.kind === 'patch') expect(Object.keys(last)).toContain(a.annotation);

  if (opts.rebuild) {
    const live = await dumpProjections(db);
    await rebuildProjections(db);
    expect(await dumpProjections(db)).toEqual(live);
  }
  const ackedIds = new Set(load.acks.map((a) => a.commandId).filter(Boolean));
  const committedUnacknowledged = [...commandCount.keys()].filter(
    (c) => load.attempted.has(c) && !ackedIds.has(c),
  ).length;
  return { offsets: offsets.length, events: seqs.length, committedUnacknowledged };
}
