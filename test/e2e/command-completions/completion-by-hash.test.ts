import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPreparedTransaction } from '@ledgerline/canton';
import {
  createNode,
  executeRequest,
  exerciseNode,
  externalParty,
  freshContractId,
  preparedTransaction,
  type ExternalParty,
} from '../../../testkit/external-signing';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import { createUser, registerKeys } from '../../support/external-parties';

/**
 * POST /v2/commands/completion-by-hash (Canton 3.5.10, InteractiveSubmissionServiceIT ISSGetCompletionByHash*): the
 * accepted completion and the latest rejected ones of an externally signed transaction, by its hash, as the caller's
 * parties see them.
 */
let ledger: TestLedger;
let sync: string;
const alice = externalParty('alice');
const bob = externalParty('bob');

beforeAll(async () => {
  ledger = await startTestLedger({
    LEDGER_MAX_DEDUPLICATION_SECONDS: '600',
    LEDGER_PREPARATION_TIME_TOLERANCE_SECONDS: '3600',
  });
  sync = ledger.runtime.identity.synchronizers[0].id;
  await registerKeys(ledger, alice.party, [alice]);
  await registerKeys(ledger, bob.party, [bob]);
  await createUser(ledger, 'alice-app', [
    { kind: 'CanExecuteAs', party: alice.party },
    { kind: 'CanReadAs', party: alice.party },
  ]);
  await createUser(ledger, 'bob-reader', [{ kind: 'CanReadAs', party: bob.party }]);
  await createUser(ledger, 'any-reader', [{ kind: 'CanReadAsAnyParty' }]);
  await createUser(ledger, 'executor', [{ kind: 'CanExecuteAs', party: alice.party }]);
  await createUser(ledger, 'nobody', []);
});
afterAll(async () => {
  await ledger?.close();
});

const createOf = (owner: ExternalParty, cid = freshContractId(), commandId = `cmd-${cid.slice(2, 14)}`) =>
  preparedTransaction({
    nodes: [createNode('0', { contractId: cid, signatories: [owner.party], stakeholders: [owner.party] })],
    actAs: [owner.party],
    synchronizerId: sync,
    commandId,
  });
const archiveOf = (owner: ExternalParty, cid: string, commandId: string) =>
  preparedTransaction({
    nodes: [
      exerciseNode('0', {
        contractId: cid,
        signatories: [owner.party],
        stakeholders: [owner.party],
        actingParties: [owner.party],
      }),
    ],
    actAs: [owner.party],
    synchronizerId: sync,
    commandId,
  });
const exec = (body: unknown) =>
  ledger.call('POST', '/v2/interactive-submission/executeAndWait', body, { as: 'alice-app' });
const byHash = (hash: Buffer | string | undefined, as: string | null = 'alice-app') =>
  ledger.call(
    'POST',
    '/v2/commands/completion-by-hash',
    hash === undefined ? {} : { transactionHash: typeof hash === 'string' ? hash : hash.toString('base64') },
    { as },
  );
const multihash = (raw: Buffer) => Buffer.concat([Buffer.from([0x12, 0x20]), raw]);

describe('completion-by-hash', () => {
  it('accepted: found by the prepared hash (raw or multihash), carrying it; rejected re-executions capped at 10, newest first', async () => {
    const pt = createOf(alice);
    const hash = hashPreparedTransaction(pt, 2);
    const first = await exec(executeRequest(pt, [alice]));
    expect(first.status, first.text).toBe(200);
    let r = await byHash(hash);
    expect(r.status, r.text).toBe(200);
    expect(r.json.lastRejectedCompletions).toEqual([]);
    expect(r.json.acceptedCompletion).toMatchObject({
      updateId: first.json.updateId,
      offset: first.json.completionOffset,
      actAs: [alice.party],
      status: { code: 0 },
    });
    expect(Buffer.from(r.json.acceptedCompletion.transactionHash, 'base64')).toEqual(multihash(hash));
    expect((await byHash(multihash(hash))).json).toEqual(r.json);
    // 12 duplicates: each a rejected completion that carries the hash; the answer keeps the latest 10.
    const offsets: number[] = [];
    for (let i = 0; i < 12; i++) {
      const dup = await exec(executeRequest(pt, [alice]));
      expect([dup.status, dup.json.code]).toEqual([409, 'DUPLICATE_COMMAND']);
    }
    r = await byHash(hash);
    expect(r.json.acceptedCompletion.offset).toBe(first.json.completionOffset);
    const rejected = r.json.lastRejectedCompletions;
    expect(rejected).toHaveLength(10);
    for (const c of rejected) {
      expect(c.status.message).toMatch(/^DUPLICATE_COMMAND\(/);
      expect(c.updateId).toBe('');
      expect(Buffer.from(c.transactionHash, 'base64')).toEqual(multihash(hash));
      offsets.push(c.offset);
    }
    expect(offsets).toEqual([...offsets].sort((a, b) => b - a));
  });

  it('rejected only: a stale archive is LOCAL_VERDICT_INACTIVE_CONTRACTS, found with no accepted completion', async () => {
    const local = freshContractId();
    expect((await exec(executeRequest(createOf(alice, local), [alice]))).status).toBe(200);
    // The commit suffixes the prepared (local) id; the archives name the committed one.
    const cid = (
      await ledger.runtime.db
        .selectFrom('contracts')
        .select('contract_id')
        .where('contract_id', 'like', `${local}ca12%`)
        .executeTakeFirstOrThrow()
    ).contract_id;
    const stale = archiveOf(alice, cid, 'stale-archive');
    expect((await exec(executeRequest(archiveOf(alice, cid, 'fresh-archive'), [alice]))).status).toBe(200);
    const failed = await exec(executeRequest(stale, [alice]));
    expect(failed.json.code).toBe('LOCAL_VERDICT_INACTIVE_CONTRACTS');
    const r = await byHash(hashPreparedTransaction(stale, 2));
    expect(r.status, r.text).toBe(200);
    expect(r.json.acceptedCompletion).toBeNull();
    expect(r.json.lastRejectedCompletions).toHaveLength(1);
    expect(r.json.lastRejectedCompletions[0]).toMatchObject({ commandId: 'stale-archive', actAs: [alice.party] });
    expect(r.json.lastRejectedCompletions[0].status.message).toContain('LOCAL_VERDICT_INACTIVE_CONTRACTS');
  });

  it('visibility and rights: other parties do not find it; a reader of any party does; no readable party → 403; no token → 401', async () => {
    const pt = createOf(alice);
    const hash = hashPreparedTransaction(pt, 2);
    expect((await exec(executeRequest(pt, [alice]))).status).toBe(200);
    const hidden = await byHash(hash, 'bob-reader');
    expect([hidden.status, hidden.json.code, hidden.json.cause]).toEqual([
      404,
      'COMPLETION_NOT_FOUND',
      'Completion not found, or not visible.',
    ]);
    expect(hidden.json.resources).toEqual([['TRANSACTION_HASH', hash.toString('hex')]]);
    expect((await byHash(hash, 'any-reader')).json.acceptedCompletion.actAs).toEqual([alice.party]);
    // CanExecuteAs alone reads nothing; nor does the admin without party rights.
    for (const user of ['executor', 'nobody', ledger.config.adminUser])
      expect((await byHash(hash, user)).status, user).toBe(403);
    expect((await byHash(hash, null)).status).toBe(401);
  });

  it('validation: an empty or missing hash is INVALID_ARGUMENT; an unknown one COMPLETION_NOT_FOUND; not base64 does not decode', async () => {
    for (const h of [undefined, '']) {
      const r = await byHash(h);
      expect([r.status, r.json.code, r.json.cause]).toEqual([
        400,
        'INVALID_ARGUMENT',
        'The submitted request has invalid arguments: Missing field: transaction_hash',
      ]);
    }
    const unknown = Buffer.alloc(34, 7);
    const r = await byHash(unknown);
    expect([r.status, r.json.code]).toEqual([404, 'COMPLETION_NOT_FOUND']);
    expect(r.json.resources).toEqual([['TRANSACTION_HASH', unknown.toString('hex')]]);
    const bad = await byHash('***');
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/^Invalid value for: body/);
  });
});
