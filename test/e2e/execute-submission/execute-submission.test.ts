import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { PreparedTransaction } from '@canton-network/core-ledger-proto';
import { hashPreparedTransaction, isCantonSuffixedContractId } from '@ledgerline/canton';
import {
  createNode,
  executeRequest,
  exerciseNode,
  externalParty,
  extraKey,
  freshContractId,
  preparedTransaction,
  TEMPLATE,
  PACKAGE_NAME,
  type ExternalParty,
} from '../../../testkit/external-signing';
import { expectCantonError } from '../../support/canton-error';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import { createUser, ledgerEnd, registerKeys } from '../../support/external-parties';
import { expectSameFrameworkEdges } from '../../support/framework-edges';

let ledger: TestLedger;
let sync: string;
let otherSync: string;
const alice = externalParty('alice');
const bob = externalParty('bob');
const multi = externalParty('multi');
const multi2 = extraKey(multi.party);
const EXEC = '/v2/interactive-submission/executeAndWait';
const TID = `${TEMPLATE.packageId}:${TEMPLATE.moduleName}:${TEMPLATE.entityName}`;

beforeAll(async () => {
  ledger = await startTestLedger({
    LEDGER_SYNCHRONIZERS: 'global,secondary',
    LEDGER_MAX_DEDUPLICATION_SECONDS: '600',
    LEDGER_TIME_TOLERANCE_SECONDS: '60',
    LEDGER_PREPARATION_TIME_TOLERANCE_SECONDS: '3600',
  });
  sync = ledger.runtime.identity.synchronizers[0].id;
  otherSync = ledger.runtime.identity.synchronizers[1].id;
  await registerKeys(ledger, alice.party, [alice]);
  await registerKeys(ledger, bob.party, [bob]);
  await registerKeys(ledger, multi.party, [multi, multi2], 2);
  await createUser(ledger, 'alice-app', [
    { kind: 'CanExecuteAs', party: alice.party },
    { kind: 'CanReadAs', party: alice.party },
  ]);
  await createUser(ledger, 'multi-app', [{ kind: 'CanActAs', party: multi.party }]);
  await createUser(ledger, 'all-app', [{ kind: 'CanExecuteAsAnyParty' }]);
  await createUser(ledger, 'reader', [{ kind: 'CanReadAs', party: alice.party }]);
});
afterAll(async () => {
  await ledger?.close();
});

const createOf = (
  owner: ExternalParty,
  o: { cid?: string; observers?: string[]; commandId?: string; synchronizerId?: string } = {},
) =>
  preparedTransaction({
    nodes: [
      createNode('0', {
        contractId: o.cid ?? freshContractId(),
        signatories: [owner.party],
        stakeholders: [owner.party, ...(o.observers ?? [])],
      }),
    ],
    actAs: [owner.party],
    synchronizerId: o.synchronizerId ?? sync,
    commandId: o.commandId,
  });

const archiveOf = (owner: ExternalParty, cid: string, o: { observers?: string[]; commandId?: string } = {}) =>
  preparedTransaction({
    nodes: [
      exerciseNode('0', {
        contractId: cid,
        signatories: [owner.party],
        stakeholders: [owner.party, ...(o.observers ?? [])],
        actingParties: [owner.party],
      }),
    ],
    actAs: [owner.party],
    synchronizerId: sync,
    commandId: o.commandId,
  });

const exec = (body: unknown, as = 'alice-app') => ledger.call('POST', EXEC, body, { as });

/**
 * Asserts a JsCantonError rejection and that no transaction was added: a rejection decided before the writer leaves the
 * ledger end unchanged; one decided at commit is a rejected completion with this code at the one offset it added.
 */
async function rejected(body: unknown, status: number, code: string, as = 'alice-app') {
  const before = await ledgerEnd(ledger);
  const r = await exec(body, as);
  expectCantonError(r, status, code);
  const after = await ledgerEnd(ledger);
  expect(
    await ledger.runtime.db
      .selectFrom('ledger_updates')
      .select('ledger_offset')
      .where('ledger_offset', '>', before)
      .execute(),
  ).toEqual([]);
  if (after !== before) {
    expect(after).toBe(before + 1);
    const row = await ledger.runtime.db
      .selectFrom('command_completions')
      .select('completion')
      .where('completion_offset', '=', after)
      .executeTakeFirstOrThrow();
    expect((row.completion as { status: { message: string } }).status.message).toMatch(new RegExp(`^${code}\\(`));
  }
  return r.json;
}

async function committed(body: unknown, as = 'alice-app') {
  const r = await exec(body, as);
  expect(r.status, r.text).toBe(200);
  return r.json as { updateId: string; completionOffset: number };
}

/** The committed ids of the contracts the transaction at this offset created (the local id with Canton's suffix). */
async function createdIds(offset: number): Promise<string[]> {
  const row = await ledger.runtime.db
    .selectFrom('ledger_updates')
    .select('payload')
    .where('ledger_offset', '=', offset)
    .executeTakeFirstOrThrow();
  return (row.payload as any).events
    .filter((e: any) => e.CreatedEvent)
    .map((e: any) => e.CreatedEvent.contractId as string);
}

/** Commits a create of `owner`'s prepared with a fresh local id; its committed id. */
async function createCommitted(owner: ExternalParty, o: { observers?: string[] } = {}): Promise<string> {
  const local = freshContractId();
  const [cid] = await createdIds(
    (await committed(executeRequest(createOf(owner, { cid: local, ...o }), [owner]))).completionOffset,
  );
  expect(cid.slice(0, 66)).toBe(local);
  expect(isCantonSuffixedContractId(cid)).toBe(true);
  return cid;
}

describe('executeAndWait: happy path', () => {
  it('creates, then archives through a second execute; the update and the contracts projection reflect both', async () => {
    const local = freshContractId();
    const before = await ledgerEnd(ledger);
    const pt = createOf(alice, { cid: local, observers: [bob.party] });
    const created = await committed(executeRequest(pt, [alice]));
    expect(created.updateId).toMatch(/^1220[0-9a-f]{64}$/);
    expect(created.completionOffset).toBe(before + 1);
    expect(await ledgerEnd(ledger)).toBe(before + 1);

    const row = await ledger.runtime.db
      .selectFrom('ledger_updates')
      .selectAll()
      .where('ledger_offset', '=', created.completionOffset)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      update_id: created.updateId,
      kind: 'Transaction',
      synchronizer_id: sync,
      command_id: pt.metadata!.submitterInfo!.commandId,
    });
    const payload = row.payload as any;
    expect(payload.externalTransactionHash).toBe('1220' + hashPreparedTransaction(pt, 2).toString('hex'));
    // The signed transaction has the local id; the committed contract has it with Canton's suffix.
    const cid = payload.events[0].CreatedEvent.contractId as string;
    expect(cid).toMatch(new RegExp(`^${local}ca121220[0-9a-f]{64}$`));
    expect(await contractStatus(local)).toBeUndefined();
    expect(payload.events[0].CreatedEvent).toMatchObject({
      nodeId: 0,
      contractId: cid,
      templateId: TID,
      packageName: PACKAGE_NAME,
      signatories: [alice.party],
      observers: [bob.party],
      createArgument: { owner: alice.party, note: 'hello' },
      acsDelta: true,
    });
    const parties = await ledger.runtime.db
      .selectFrom('ledger_update_parties')
      .select('party')
      .where('ledger_offset', '=', created.completionOffset)
      .execute();
    expect(parties.map((p) => p.party).sort()).toEqual([alice.party, bob.party].sort());
    expect(await contractStatus(cid)).toEqual({ status: 'active', synchronizer_id: sync });

    const archived = await committed(executeRequest(archiveOf(alice, cid, { observers: [bob.party] }), [alice]));
    expect(archived.completionOffset).toBe(before + 2);
    expect(await contractStatus(cid)).toEqual({ status: 'archived', synchronizer_id: null });
    const again = await ledger.runtime.db
      .selectFrom('ledger_updates')
      .select('payload')
      .where('ledger_offset', '=', archived.completionOffset)
      .executeTakeFirstOrThrow();
    expect((again.payload as any).events.map((e: object) => Object.keys(e)[0])).toEqual([
      'ExercisedEvent',
      'ArchivedEvent',
    ]);
  });

  it('hashing scheme V3, a multi-key party with threshold 2, an explicit matching userId, and /execute', async () => {
    await committed(executeRequest(createOf(alice), [alice], { version: 3, userId: 'alice-app' }));
    await committed(executeRequest(createOf(multi), [multi, multi2]), 'multi-app');
    const r = await ledger.call(
      'POST',
      '/v2/interactive-submission/execute',
      executeRequest(createOf(alice), [alice]),
      { as: 'alice-app' },
    );
    expect(r.status).toBe(200);
    expect(r.json).toEqual({});
  });

  it("the writer's batches are in /metrics by phase (lock, load, decide, write, commit)", async () => {
    const series = async () => {
      const text = (await ledger.call('GET', '/metrics')).text;
      const num = (suffix: string, phase: string) =>
        Number(
          new RegExp(`^ledgerline_append_batch_phase_seconds_${suffix}\\{phase="${phase}"\\} (\\S+)$`, 'm').exec(
            text,
          )?.[1],
        );
      return Object.fromEntries(
        ['lock', 'load', 'decide', 'write', 'commit'].map((ph) => [
          ph,
          { count: num('count', ph), sum: num('sum', ph) },
        ]),
      );
    };
    const before = await series();
    await committed(executeRequest(createOf(alice), [alice]));
    const after = await series();
    for (const ph of ['lock', 'load', 'decide', 'write', 'commit'])
      expect(after[ph].count).toBeGreaterThan(before[ph].count);
    expect(after.load.sum).toBeGreaterThan(before.load.sum);
    expect(after.write.sum).toBeGreaterThan(before.write.sum);
    expect(after.commit.sum).toBeGreaterThan(before.commit.sum);
  });
});

describe('update-by-hash: an executed transaction by the hash its parties signed', () => {
  const byHash = (transactionHash: unknown, parties: string[], as = 'reader') =>
    ledger.call(
      'POST',
      '/v2/updates/update-by-hash',
      {
        transactionHash,
        updateFormat: {
          includeTransactions: {
            eventFormat: { filtersByParty: Object.fromEntries(parties.map((p) => [p, {}])) },
            transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
          },
        },
      },
      { as },
    );

  it('finds it by the raw hash (as prepare answers it) or its multihash, rendered as update-by-id renders it', async () => {
    const pt = createOf(alice);
    const { updateId } = await committed(executeRequest(pt, [alice]));
    const raw = hashPreparedTransaction(pt, 2);
    const r = await byHash(raw.toString('base64'), [alice.party]);
    expect(r.status, r.text).toBe(200);
    expect(r.json.update.Transaction.value).toMatchObject({
      updateId,
      externalTransactionHash: '1220' + raw.toString('hex'),
    });
    const multihash = Buffer.concat([Buffer.from([0x12, 0x20]), raw]).toString('base64');
    expect((await byHash(multihash, [alice.party])).json).toEqual(r.json);
    const byId = await ledger.call(
      'POST',
      '/v2/updates/update-by-id',
      {
        updateId,
        updateFormat: {
          includeTransactions: {
            eventFormat: { filtersByParty: { [alice.party]: {} } },
            transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
          },
        },
      },
      { as: 'reader' },
    );
    expect(byId.json).toEqual(r.json);

    // invisible to a party that is no stakeholder; unknown hashes; bad hashes; rights first
    await createUser(ledger, 'bob-reader', [{ kind: 'CanReadAs', party: bob.party }]);
    const hidden = await byHash(raw.toString('base64'), [bob.party], 'bob-reader');
    expect({ status: hidden.status, code: hidden.json.code, resources: hidden.json.resources }).toEqual({
      status: 404,
      code: 'UPDATE_NOT_FOUND',
      resources: [['TRANSACTION_HASH', '1220' + raw.toString('hex')]],
    });
    expect((await byHash(Buffer.alloc(32, 7).toString('base64'), [alice.party])).json.code).toBe('UPDATE_NOT_FOUND');
    expect({ ...(await byHash('', [alice.party])).json }).toMatchObject({ code: 'MISSING_FIELD' });
    expect((await byHash(Buffer.alloc(5).toString('base64'), [alice.party])).json.code).toBe('INVALID_FIELD');
    const notBase64 = await byHash('not base64!', [alice.party]);
    expect(notBase64.status).toBe(400);
    expect(notBase64.text).toMatch(/^Invalid value for: body/);
    expect((await byHash(raw.toString('base64'), [bob.party])).status).toBe(403);
    expect(
      (
        await ledger.call(
          'POST',
          '/v2/updates/update-by-hash',
          { transactionHash: raw.toString('base64'), updateFormat: { includeTransactions: null } },
          { as: 'reader' },
        )
      ).json.code,
    ).toBe('UPDATE_NOT_FOUND');
  });
});

async function contractStatus(cid: string) {
  return ledger.runtime.db
    .selectFrom('contracts')
    .select(['status', 'synchronizer_id'])
    .where('contract_id', '=', cid)
    .executeTakeFirst();
}

describe('executeAndWait: rejections (code, status, unchanged ledger end)', () => {
  it('as a direct route it answers the framework edges as its controller sibling /execute does, and moves nothing', async () => {
    const before = await ledgerEnd(ledger);
    await expectSameFrameworkEdges(ledger, EXEC, '/v2/interactive-submission/execute', 'alice-app', {
      preparedTransaction: 5,
      userId: [],
    });
    expect(await ledgerEnd(ledger)).toBe(before);
  });

  it('bad base64 → 400 text/plain', async () => {
    const before = await ledgerEnd(ledger);
    const r = await exec({ ...executeRequest(createOf(alice), [alice]), preparedTransaction: '%%%not base64' });
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(r.text).toMatch(
      /^Invalid value for: body \(The string is not a valid Base64: .* at 'preparedTransaction'\)$/,
    );
    expect(await ledgerEnd(ledger)).toBe(before);
  });

  it('a missing required field → 400 text/plain', async () => {
    const { deduplicationPeriod: _d, ...rest } = executeRequest(createOf(alice), [alice]);
    void _d;
    const r = await exec(rest);
    expect(r.status).toBe(400);
    expect(r.text).toBe("Invalid value for: body (Missing required field at 'deduplicationPeriod')");
  });

  it('unparseable protobuf → 400 INVALID_ARGUMENT "Cannot parse prepared_transaction"', async () => {
    const body = {
      ...executeRequest(createOf(alice), [alice]),
      preparedTransaction: Buffer.from([0xff, 0xff, 0xff, 0xff]).toString('base64'),
    };
    const e = await rejected(body, 400, 'INVALID_ARGUMENT');
    expect(e.cause).toContain('Cannot parse prepared_transaction');
  });

  it('absent metadata / submitter info → MISSING_FIELD', async () => {
    const pt = createOf(alice);
    const noMeta = PreparedTransaction.create({ transaction: pt.transaction });
    expect((await rejected(executeRequest(noMeta, [alice]), 400, 'MISSING_FIELD')).context.field_name).toBe('metadata');
    const noSubmitter = PreparedTransaction.create({ ...pt, metadata: { ...pt.metadata!, submitterInfo: undefined } });
    expect((await rejected(executeRequest(noSubmitter, [alice]), 400, 'MISSING_FIELD')).context.field_name).toBe(
      'submitter_info',
    );
  });

  it('no ExecuteAs right for an actAs party → 403 (redacted); a different userId → 403', async () => {
    const e = await rejected(executeRequest(createOf(alice), [alice]), 403, 'NA', 'reader');
    expect(e.errorCategory).toBe(-1);
    await rejected(executeRequest(createOf(alice), [alice], { userId: 'someone-else' }), 403, 'NA');
  });

  it('invalid fields → INVALID_FIELD', async () => {
    const base = executeRequest(createOf(alice), [alice]) as any;
    const sig = base.partySignatures.signatures[0].signatures[0];
    const withSig = (s: object) => ({
      ...base,
      partySignatures: { signatures: [{ party: alice.party, signatures: [{ ...sig, ...s }] }] },
    });
    expect(
      (await rejected({ ...base, hashingSchemeVersion: 'HASHING_SCHEME_VERSION_UNSPECIFIED' }, 400, 'INVALID_FIELD'))
        .cause,
    ).toBe(
      'The submitted command has a field with invalid value: Invalid field hashing_scheme_version: Unspecified version',
    );
    expect((await rejected(withSig({ format: 'SIGNATURE_FORMAT_UNSPECIFIED' }), 400, 'INVALID_FIELD')).cause).toContain(
      'Signature format must be specified',
    );
    expect(
      (await rejected(withSig({ signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ML_DSA_65' }), 400, 'INVALID_FIELD'))
        .context.field_name,
    ).toBe('signing_algorithm_spec');
    expect((await rejected(withSig({ signedBy: 'not-a-fingerprint' }), 400, 'INVALID_FIELD')).context.field_name).toBe(
      'signed_by',
    );
    const badParty = { ...base, partySignatures: { signatures: [{ party: 'alice', signatures: [sig] }] } };
    expect((await rejected(badParty, 400, 'INVALID_FIELD')).context.field_name).toBe('SinglePartySignatures.party');
    const badSync = createOf(alice, { synchronizerId: 'no-namespace' });
    expect((await rejected(executeRequest(badSync, [alice]), 400, 'INVALID_FIELD')).context.field_name).toBe(
      'synchronizer_id',
    );
  });

  it('deduplication periods: negative duration, too long, negative offset', async () => {
    const body = (dp: unknown) => executeRequest(createOf(alice), [alice], { deduplicationPeriod: dp });
    await rejected(body({ DeduplicationDuration: { value: { seconds: -5 } } }), 400, 'INVALID_FIELD');
    const tooLong = await rejected(
      body({ DeduplicationDuration: { value: { seconds: 601 } } }),
      400,
      'INVALID_DEDUPLICATION_PERIOD',
    );
    expect(tooLong.context.longest_duration).toBe('PT10M');
    await rejected(body({ DeduplicationOffset: { value: -1 } }), 400, 'NEGATIVE_OFFSET');
  });

  it('V4 and multiple roots → FAILED_TO_EXECUTE_TRANSACTION', async () => {
    const v4 = { ...executeRequest(createOf(alice), [alice]), hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V4' };
    expect((await rejected(v4, 400, 'FAILED_TO_EXECUTE_TRANSACTION')).cause).toContain(
      'Hashing scheme version V4 is not supported',
    );
    const two = preparedTransaction({
      nodes: [
        createNode('0', { contractId: freshContractId(), signatories: [alice.party], stakeholders: [alice.party] }),
        createNode('1', { contractId: freshContractId(), signatories: [alice.party], stakeholders: [alice.party] }),
      ],
      roots: ['0', '1'],
      actAs: [alice.party],
      synchronizerId: sync,
    });
    expect((await rejected(executeRequest(two, [alice]), 400, 'FAILED_TO_EXECUTE_TRANSACTION')).cause).toBe(
      'The participant failed to execute the transaction: Transaction with multiple root nodes are not supported',
    );
  });

  it('a synchronizer this participant does not know → NOT_CONNECTED_TO_SYNCHRONIZER', async () => {
    await rejected(
      executeRequest(createOf(alice, { synchronizerId: `elsewhere::1220${'00'.repeat(32)}` }), [alice]),
      400,
      'NOT_CONNECTED_TO_SYNCHRONIZER',
    );
  });

  it('signatures: wrong hash, wrong scheme, unknown key, missing party, below threshold', async () => {
    const pt = createOf(alice);
    const hex = hashPreparedTransaction(pt, 2).toString('hex');
    const wrong = await rejected(
      executeRequest(pt, [alice], { signBytes: Buffer.alloc(32, 9) }),
      400,
      'FAILED_TO_EXECUTE_TRANSACTION',
    );
    expect(wrong.cause).toBe(
      `The participant failed to execute the transaction: Received 0 valid signatures from distinct keys (1 invalid), but expected at least 1 valid for ${alice.party}. ` +
        `Transaction hash to be signed: ${hex}. Ensure the correct transaction hash is signed with the correct key(s).`,
    );
    // Signed the V2 hash but asked for V3.
    const v2signed = { ...executeRequest(pt, [alice]), hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V3' };
    expect((await rejected(v2signed, 400, 'FAILED_TO_EXECUTE_TRANSACTION')).cause).toContain(
      'Received 0 valid signatures',
    );
    const impostor = { ...extraKey(alice.party), party: alice.party };
    expect((await rejected(executeRequest(pt, [impostor]), 400, 'FAILED_TO_EXECUTE_TRANSACTION')).cause).toContain(
      '(1 invalid)',
    );
    expect((await rejected(executeRequest(pt, [bob]), 400, 'FAILED_TO_EXECUTE_TRANSACTION')).cause).toContain(
      `The following actAs parties did not provide an external signature: ${alice.party}`,
    );
    expect(
      (await rejected(executeRequest(createOf(multi), [multi]), 400, 'FAILED_TO_EXECUTE_TRANSACTION', 'multi-app'))
        .cause,
    ).toContain('Received 1 valid signatures from distinct keys (0 invalid), but expected at least 2 valid');
    const stranger = externalParty('stranger');
    expect(
      (await rejected(executeRequest(createOf(stranger), [stranger]), 400, 'FAILED_TO_EXECUTE_TRANSACTION', 'all-app'))
        .cause,
    ).toContain(`Could not find party signing keys for ${stranger.party}.`);
  });

  it('authorization: a create signed by a party not acting → FAILED_TO_EXECUTE_TRANSACTION', async () => {
    const pt = preparedTransaction({
      nodes: [
        createNode('0', {
          contractId: freshContractId(),
          signatories: [alice.party, bob.party],
          stakeholders: [alice.party, bob.party],
        }),
      ],
      actAs: [alice.party],
      synchronizerId: sync,
    });
    expect((await rejected(executeRequest(pt, [alice]), 400, 'FAILED_TO_EXECUTE_TRANSACTION')).cause).toContain(
      `(missing ${bob.party})`,
    );
  });

  it('consistency: archived, unknown, wrong synchronizer, mismatching node, existing contract id (rejected completions)', async () => {
    // Not UNKNOWN_CONTRACT_SYNCHRONIZERS: a prepared transaction discloses all its input contracts, and routing leaves
    // disclosed contracts to the confirmers (Canton's ExternalTransactionProcessor.scala, ContractsSynchronizerData.scala).
    const cid = await createCommitted(alice);
    await committed(executeRequest(archiveOf(alice, cid), [alice]));
    expect(
      (await rejected(executeRequest(archiveOf(alice, cid), [alice]), 404, 'LOCAL_VERDICT_INACTIVE_CONTRACTS'))
        .resources,
    ).toEqual([['CONTRACT_ID', cid]]);
    await rejected(
      executeRequest(archiveOf(alice, freshContractId()), [alice]),
      404,
      'LOCAL_VERDICT_INACTIVE_CONTRACTS',
    );
    // The local id of a committed contract names no contract.
    expect(
      (
        await rejected(
          executeRequest(archiveOf(alice, cid.slice(0, 66)), [alice]),
          404,
          'LOCAL_VERDICT_INACTIVE_CONTRACTS',
        )
      ).resources,
    ).toEqual([['CONTRACT_ID', cid.slice(0, 66)]]);
    // A create stating a committed id (a suffixed one, kept as it is) creates an existing contract.
    await rejected(executeRequest(createOf(alice, { cid }), [alice]), 409, 'LOCAL_VERDICT_CREATES_EXISTING_CONTRACTS');
    // The same local id again is suffixed anew: another contract.
    const [again] = await createdIds(
      (await committed(executeRequest(createOf(alice, { cid: cid.slice(0, 66) }), [alice]))).completionOffset,
    );
    expect(again.slice(0, 66)).toBe(cid.slice(0, 66));
    expect(again).not.toBe(cid);

    const live = await createCommitted(alice);
    const elsewhere = preparedTransaction({
      nodes: [
        exerciseNode('0', {
          contractId: live,
          signatories: [alice.party],
          stakeholders: [alice.party],
          actingParties: [alice.party],
        }),
      ],
      actAs: [alice.party],
      synchronizerId: otherSync,
    });
    await rejected(executeRequest(elsewhere, [alice]), 404, 'LOCAL_VERDICT_INACTIVE_CONTRACTS');
    expect(
      (
        await rejected(
          executeRequest(archiveOf(alice, live, { observers: [bob.party] }), [alice]),
          400,
          'FAILED_TO_EXECUTE_TRANSACTION',
        )
      ).cause,
    ).toContain('states stakeholders');
    // A contract being reassigned (in flight) is not active.
    await sql`UPDATE contracts SET status = 'in_flight', synchronizer_id = NULL WHERE contract_id = ${live}`.execute(
      ledger.runtime.db,
    );
    await rejected(executeRequest(archiveOf(alice, live), [alice]), 404, 'LOCAL_VERDICT_INACTIVE_CONTRACTS');
    await sql`UPDATE contracts SET status = 'active', synchronizer_id = ${sync} WHERE contract_id = ${live}`.execute(
      ledger.runtime.db,
    );
    await committed(executeRequest(archiveOf(alice, live), [alice]));
  });

  it('consuming the same contract twice in one transaction → CONTRACT_NOT_ACTIVE', async () => {
    const cid = await createCommitted(alice);
    const parent = await createCommitted(alice);
    const ref = { signatories: [alice.party], stakeholders: [alice.party], actingParties: [alice.party] };
    const pt = preparedTransaction({
      nodes: [
        exerciseNode('0', { ...ref, contractId: parent, choiceId: 'Twice', consuming: false, children: ['1', '2'] }),
        exerciseNode('1', { ...ref, contractId: cid }),
        exerciseNode('2', { ...ref, contractId: cid }),
      ],
      actAs: [alice.party],
      synchronizerId: sync,
    });
    await rejected(executeRequest(pt, [alice]), 404, 'CONTRACT_NOT_ACTIVE');
  });

  it('time: preparation time too old, ledger-time bounds unreachable, max record time passed', async () => {
    const now = BigInt(Date.now()) * 1000n;
    const mk = (o: object) =>
      preparedTransaction({
        nodes: [
          createNode('0', { contractId: freshContractId(), signatories: [alice.party], stakeholders: [alice.party] }),
        ],
        actAs: [alice.party],
        synchronizerId: sync,
        ...o,
      });
    await rejected(
      executeRequest(mk({ preparationTime: now - 7200n * 1_000_000n }), [alice]),
      409,
      'LOCAL_VERDICT_PREPARATION_TIME_OUT_OF_BOUND',
    );
    await rejected(
      executeRequest(mk({ minLedgerEffectiveTime: now + 600n * 1_000_000n }), [alice]),
      409,
      'LOCAL_VERDICT_LEDGER_TIME_OUT_OF_BOUND',
    );
    await rejected(
      executeRequest(mk({ maxRecordTime: now - 1_000_000n }), [alice], { version: 3 }),
      400,
      'LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED',
    );
    await rejected(
      executeRequest(mk({}), [alice], { minLedgerTime: { time: { MinLedgerTimeRel: { value: { seconds: 3600 } } } } }),
      409,
      'LOCAL_VERDICT_LEDGER_TIME_OUT_OF_BOUND',
    );
  });

  it('deduplication: a second success of the same change → DUPLICATE_COMMAND with the completion offset; outside the period it commits', async () => {
    const commandId = `dedup-${Date.now()}`;
    const first = await committed(executeRequest(createOf(alice, { commandId }), [alice]));
    const dup = await rejected(executeRequest(createOf(alice, { commandId }), [alice]), 409, 'DUPLICATE_COMMAND');
    expect(dup.context.completion_offset).toBe(String(first.completionOffset));
    await rejected(
      executeRequest(createOf(alice, { commandId }), [alice], {
        deduplicationPeriod: { DeduplicationOffset: { value: first.completionOffset - 1 } },
      }),
      409,
      'DUPLICATE_COMMAND',
    );
    // Another user is another change.
    await committed(executeRequest(createOf(alice, { commandId }), [alice]), 'all-app');
    // A period that ends before the first success does not see it.
    await committed(
      executeRequest(createOf(alice, { commandId }), [alice], {
        deduplicationPeriod: { DeduplicationOffset: { value: first.completionOffset + 2 } },
      }),
    );
  });

  it('the same change at once → one commits; the others SUBMISSION_ALREADY_IN_FLIGHT (synchronous) or DUPLICATE_COMMAND (a rejected completion)', async () => {
    const commandId = `inflight-${Date.now()}`;
    const before = await ledgerEnd(ledger);
    const rs = await Promise.all(
      Array.from({ length: 4 }, () => exec(executeRequest(createOf(alice, { commandId }), [alice]))),
    );
    const codes = rs.map((r) => (r.status === 200 ? 'OK' : r.json.code)).sort();
    expect(codes.filter((c) => c === 'OK')).toHaveLength(1);
    for (const c of codes.filter((x) => x !== 'OK'))
      expect(['SUBMISSION_ALREADY_IN_FLIGHT', 'DUPLICATE_COMMAND']).toContain(c);
    expect(rs.find((r) => r.json?.code === 'SUBMISSION_ALREADY_IN_FLIGHT')?.status ?? 409).toBe(409);
    // In flight: refused before hand-over, no offset; a duplicate found at commit: a rejected completion at its own offset.
    expect(await ledgerEnd(ledger)).toBe(before + 1 + codes.filter((c) => c === 'DUPLICATE_COMMAND').length);
    expect(
      await ledger.runtime.db
        .selectFrom('ledger_updates')
        .select('ledger_offset')
        .where('ledger_offset', '>', before)
        .execute(),
    ).toHaveLength(1);
  });
});

describe('executeAndWaitForTransaction', () => {
  const FOR_TX = '/v2/interactive-submission/executeAndWaitForTransaction';

  it('answers the transaction: the default format (ACS_DELTA for the prepared actAs), a given one, events: [] for a non-informee; the external hash', async () => {
    const local = freshContractId();
    let r = await ledger.call('POST', FOR_TX, executeRequest(createOf(alice, { cid: local }), [alice]), {
      as: 'alice-app',
    });
    expect(r.status, r.text).toBe(200);
    const tx = r.json.transaction;
    const cid = tx.events[0].CreatedEvent.contractId as string;
    expect(cid).toMatch(new RegExp(`^${local}ca121220[0-9a-f]{64}$`));
    expect(tx.events.map((e: any) => e.CreatedEvent.contractId)).toEqual(await createdIds(tx.offset));
    expect(tx.externalTransactionHash).toMatch(/^1220[0-9a-f]{64}$/);
    expect(tx.offset).toBe(await ledgerEnd(ledger));
    // A completion carries the signed hash as bytes.
    const completion = await ledger.runtime.db
      .selectFrom('command_completions')
      .select('completion')
      .where('completion_offset', '=', tx.offset)
      .executeTakeFirstOrThrow();
    expect(
      Buffer.from((completion.completion as { transactionHash: string }).transactionHash, 'base64').toString('hex'),
    ).toBe(tx.externalTransactionHash);
    const effects = {
      transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
      eventFormat: { filtersByParty: { [alice.party]: {} } },
    };
    r = await ledger.call(
      'POST',
      FOR_TX,
      { ...executeRequest(archiveOf(alice, cid), [alice]), transactionFormat: effects },
      { as: 'alice-app' },
    );
    expect(r.status, r.text).toBe(200);
    expect(r.json.transaction.events.map((e: object) => Object.keys(e)[0])).toEqual(['ExercisedEvent']);
    // A format for a party that sees nothing (alice-app may read as alice only: the reader right is checked first).
    r = await ledger.call(
      'POST',
      FOR_TX,
      {
        ...executeRequest(createOf(alice), [alice]),
        transactionFormat: { ...effects, eventFormat: { filtersByParty: { [bob.party]: {} } } },
      },
      { as: 'alice-app' },
    );
    expect([r.status, r.json.code]).toEqual([403, 'NA']);
    r = await ledger.call(
      'POST',
      FOR_TX,
      {
        ...executeRequest(createOf(alice), [alice]),
        transactionFormat: { ...effects, eventFormat: { filtersByParty: { [bob.party]: {} } } },
      },
      { as: 'all-app' },
    );
    expect([r.status, r.json.code]).toEqual([403, 'NA']);
    await createUser(ledger, 'exec-and-read', [
      { kind: 'CanExecuteAs', party: alice.party },
      { kind: 'CanReadAs', party: bob.party },
    ]);
    r = await ledger.call(
      'POST',
      FOR_TX,
      {
        ...executeRequest(createOf(alice), [alice]),
        transactionFormat: { ...effects, eventFormat: { filtersByParty: { [bob.party]: {} } } },
      },
      { as: 'exec-and-read' },
    );
    expect(r.status, r.text).toBe(200);
    expect(r.json.transaction.events).toEqual([]);
    // Re-executing: 409 DUPLICATE_COMMAND, as executeAndWait.
    const again = createOf(alice, { commandId: `fortx-${Date.now()}` });
    expect((await ledger.call('POST', FOR_TX, executeRequest(again, [alice]), { as: 'alice-app' })).status).toBe(200);
    r = await ledger.call('POST', FOR_TX, executeRequest(again, [alice]), { as: 'alice-app' });
    expect([r.status, r.json.code]).toEqual([409, 'DUPLICATE_COMMAND']);
  });
});
