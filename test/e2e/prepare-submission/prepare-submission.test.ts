import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Metadata_InputContract, PreparedTransaction, type Create } from '@canton-network/core-ledger-proto';
import { hashPreparedTransaction, isContractId, valueToJson } from '@ledgerline/canton';
import {
  DEFAULT_TRAFFIC_PARAMETERS,
  envelopeCost,
  isoMicros,
  packageIdForName,
  signatureEnvelopeBytes,
  TRANSACTION_COMMITTED,
  type StoredTransaction,
} from '@ledgerline/domain';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import { defaultSynchronizer, ledgerEnd, onboardExternalParty } from '../../support/external-party';

let ledger: TestLedger;
let sync: string;
let alice: string;
let bob: string;
let carol: string;
const MEMO = '#memo-pkg:Main:Memo';

beforeAll(async () => {
  ledger = await startTestLedger({ LEDGER_SYNCHRONIZERS: 'global,secondary' });
  sync = await defaultSynchronizer(ledger);
  alice = (await onboardExternalParty(ledger, 'alice')).partyId;
  bob = (await onboardExternalParty(ledger, 'bob')).partyId;
  carol = (await ledger.call('POST', '/v2/parties', { partyIdHint: 'carol', synchronizerId: sync })).json.partyDetails
    .party;
  await ledger.call('POST', '/v2/users', {
    user: { id: 'wallet' },
    rights: [alice, bob, carol].map((party) => ({ kind: { CanActAs: { value: { party } } } })),
  });
});
afterAll(async () => {
  await ledger?.close();
});

const prepare = (body: Record<string, unknown>, as = 'wallet') =>
  ledger.call(
    'POST',
    '/v2/interactive-submission/prepare',
    { commandId: `cmd-${Math.random().toString(36).slice(2)}`, actAs: [alice], ...body },
    { as },
  );
const create = (createArguments: unknown, templateId = MEMO) => [{ CreateCommand: { templateId, createArguments } }];
const decode = (b64: string) => PreparedTransaction.fromBinary(Buffer.from(b64, 'base64'));
const createNode = (pt: PreparedTransaction): Create => {
  const t = pt.transaction!.nodes[0].versionedNode;
  if (t.oneofKind !== 'v1' || t.v1.nodeType.oneofKind !== 'create') throw new Error('not a create');
  return t.v1.nodeType.create;
};

/** Commits a created contract as executeAndWait will (a TransactionCommitted with the prepared Create node as blob). */
async function commitCreate(pt: PreparedTransaction): Promise<string> {
  const c = createNode(pt);
  const at = pt.metadata!.preparationTime;
  const data: StoredTransaction = {
    commandId: pt.metadata!.submitterInfo!.commandId,
    workflowId: '',
    effectiveAt: isoMicros(at),
    externalTransactionHash: null,
    events: [
      {
        CreatedEvent: {
          nodeId: 0,
          contractId: c.contractId,
          templateId: `${c.templateId!.packageId}:${c.templateId!.moduleName}:${c.templateId!.entityName}`,
          packageName: c.packageName,
          representativePackageId: c.templateId!.packageId,
          createArgument: valueToJson(c.argument),
          createdEventBlob: Buffer.from(
            Metadata_InputContract.toBinary({
              contract: { oneofKind: 'v1', v1: c },
              createdAt: at,
              eventBlob: new Uint8Array(),
            }),
          ).toString('base64'),
          signatories: c.signatories,
          observers: c.stakeholders.filter((p) => !c.signatories.includes(p)),
          createdAt: isoMicros(at),
          contractKey: null,
          contractKeyHash: '',
          acsDelta: true,
        },
      },
    ],
  };
  await ledger.runtime.eventStore.append([
    {
      type: TRANSACTION_COMMITTED,
      stream: `tx:${c.contractId}`,
      data,
      update: { kind: 'Transaction', synchronizerId: pt.metadata!.synchronizerId, parties: c.stakeholders },
    },
  ]);
  return c.contractId;
}

describe('prepare CreateCommand (generic template model)', () => {
  it('maps JSON to an untyped Daml-LF record, signatories = actAs, observers = other known parties; V2 hash by default', async () => {
    const before = await ledgerEnd(ledger);
    const args = {
      owner: alice,
      text: 'hello',
      count: 3,
      big: -12,
      ratio: 1.5,
      flag: true,
      none: null,
      tags: ['a', bob],
      nested: { who: carol, note: 'x::y' },
    };
    const r = await prepare({ commands: create(args), commandId: 'cmd-create-1' });
    expect(r.status, r.text).toBe(200);
    expect(r.json.hashingSchemeVersion).toBe('HASHING_SCHEME_VERSION_V2');
    const pt = decode(r.json.preparedTransaction);
    // The hash, recomputed independently from the returned bytes.
    expect(Buffer.from(r.json.preparedTransactionHash, 'base64').equals(hashPreparedTransaction(pt, 2))).toBe(true);
    expect(Buffer.from(r.json.preparedTransactionHash, 'base64')).toHaveLength(32);

    const c = createNode(pt);
    expect(c.templateId).toEqual({ packageId: packageIdForName('memo-pkg'), moduleName: 'Main', entityName: 'Memo' });
    expect(c.templateId!.packageId).toMatch(/^[0-9a-f]{64}$/);
    expect(c.packageName).toBe('memo-pkg');
    expect(isContractId(c.contractId)).toBe(true);
    expect(c.contractId).toMatch(/^00[0-9a-f]{64}$/);
    expect(c.signatories).toEqual([alice]);
    expect(c.stakeholders).toEqual([alice, bob, carol].sort());
    const fields = c.argument!.sum.oneofKind === 'record' ? c.argument!.sum.record.fields : [];
    expect(fields.map((f) => f.label)).toEqual(Object.keys(args));
    expect(fields.map((f) => f.value!.sum.oneofKind)).toEqual([
      'party',
      'text',
      'int64',
      'int64',
      'numeric',
      'bool',
      'optional',
      'list',
      'record',
    ]);
    expect(valueToJson(c.argument)).toEqual({ ...args, count: '3', big: '-12', ratio: '1.5' });
    const tags = fields[7].value!.sum;
    expect(tags.oneofKind === 'list' && tags.list.elements.map((e) => e.sum.oneofKind)).toEqual(['text', 'party']);

    const md = pt.metadata!;
    expect(md.submitterInfo).toEqual({ actAs: [alice], commandId: 'cmd-create-1' });
    expect(md.synchronizerId).toBe(sync);
    expect(md.transactionUuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Number(md.preparationTime / 1000n)).toBeGreaterThan(Date.now() - 60_000);
    expect(md.inputContracts).toEqual([]);
    expect(pt.transaction!.roots).toEqual(['0']);
    expect(pt.transaction!.nodeSeeds).toHaveLength(1);
    expect(pt.transaction!.nodeSeeds[0].seed).toHaveLength(32);
    // Preparing writes nothing.
    expect(await ledgerEnd(ledger)).toBe(before);
  });

  it('V3 on request (maxRecordTime is hashed), hashing details when verbose', async () => {
    const r = await prepare({
      commands: create({ owner: alice }),
      hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V3',
      maxRecordTime: '2099-01-01T00:00:00Z',
      verboseHashing: true,
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.hashingSchemeVersion).toBe('HASHING_SCHEME_VERSION_V3');
    const pt = decode(r.json.preparedTransaction);
    expect(pt.metadata!.maxRecordTime).toBe(4070908800000000n);
    expect(Buffer.from(r.json.preparedTransactionHash, 'base64').equals(hashPreparedTransaction(pt, 3))).toBe(true);
    expect(hashPreparedTransaction(pt, 2).equals(hashPreparedTransaction(pt, 3))).toBe(false);
    expect(r.json.hashingDetails).toContain(Buffer.from(r.json.preparedTransactionHash, 'base64').toString('hex'));
  });

  it('two prepares of the same command differ (transaction UUID, seeds, contract id)', async () => {
    const [a, b] = await Promise.all([
      prepare({ commands: create({ owner: alice }) }),
      prepare({ commands: create({ owner: alice }) }),
    ]);
    expect(createNode(decode(a.json.preparedTransaction)).contractId).not.toBe(
      createNode(decode(b.json.preparedTransaction)).contractId,
    );
    expect(a.json.preparedTransactionHash).not.toBe(b.json.preparedTransactionHash);
  });
});

describe('prepare ExerciseCommand Archive', () => {
  let cid: string;
  let created: PreparedTransaction;
  beforeAll(async () => {
    const r = await prepare({ commands: create({ owner: alice, reader: bob }) });
    created = decode(r.json.preparedTransaction);
    cid = await commitCreate(created);
  });
  const archive = (extra: Record<string, unknown> = {}, templateId = MEMO, contractId?: string) => [
    { ExerciseCommand: { templateId, contractId: contractId ?? cid, choice: 'Archive', choiceArgument: {}, ...extra } },
  ];

  it('a consuming Exercise by the signatories, the contract as input contract', async () => {
    const r = await prepare({ commands: archive() });
    expect(r.status, r.text).toBe(200);
    const pt = decode(r.json.preparedTransaction);
    expect(Buffer.from(r.json.preparedTransactionHash, 'base64').equals(hashPreparedTransaction(pt, 2))).toBe(true);
    const n = pt.transaction!.nodes[0].versionedNode;
    const ex = n.oneofKind === 'v1' && n.v1.nodeType.oneofKind === 'exercise' ? n.v1.nodeType.exercise : undefined;
    const c = createNode(created);
    expect(ex).toMatchObject({
      contractId: cid,
      templateId: c.templateId,
      packageName: 'memo-pkg',
      choiceId: 'Archive',
      consuming: true,
      actingParties: [alice],
      signatories: [alice],
      stakeholders: [alice, bob].sort(),
      children: [],
    });
    expect(pt.metadata!.synchronizerId).toBe(sync);
    expect(pt.metadata!.inputContracts).toHaveLength(1);
    const input = pt.metadata!.inputContracts[0];
    expect(input.contract.oneofKind === 'v1' && input.contract.v1).toEqual(c);
    expect(input.createdAt).toBe(created.metadata!.preparationTime);
    expect(input.eventBlob.length).toBeGreaterThan(0);
    // Also by package id.
    const byId = await prepare({ commands: archive({}, `${packageIdForName('memo-pkg')}:Main:Memo`) });
    expect(byId.status, byId.text).toBe(200);
  });

  it('rejections: another choice, unknown or archived contract, wrong template, missing controller, an argument', async () => {
    const end = await ledgerEnd(ledger);
    let r = await prepare({ commands: archive({ choice: 'Transfer', choiceArgument: { newOwner: bob } }) });
    expect([r.status, r.json.code]).toEqual([400, 'INVALID_ARGUMENT']);
    expect(r.json.cause).toMatch(
      /Choice 'Transfer' .*does not run Daml code.*build the prepared transaction yourself.*executeAndWait/,
    );
    r = await prepare({ commands: archive({}, MEMO, '00' + 'ab'.repeat(32) + 'ca121220' + 'cd'.repeat(32)) });
    expect([r.status, r.json.code]).toEqual([404, 'CONTRACT_NOT_FOUND']);
    // An id without suffix names no committed contract: Canton's preprocessor refuses it.
    r = await prepare({ commands: archive({}, MEMO, '00' + 'ab'.repeat(32)) });
    expect([r.status, r.json.code, r.json.cause]).toEqual([
      400,
      'COMMAND_PREPROCESSING_FAILED',
      `Illegal Contract ID "00${'ab'.repeat(32)}", non-suffixed V1 Contract IDs are forbidden`,
    ]);
    r = await prepare({ commands: archive({}, MEMO, 'not-a-contract-id') });
    expect([r.status, r.json.code]).toEqual([400, 'INVALID_FIELD']);
    r = await prepare({ commands: archive({}, '#memo-pkg:Main:Other') });
    expect([r.status, r.json.code]).toEqual([400, 'WRONGLY_TYPED_CONTRACT']);
    r = await prepare({ commands: archive({}, '#other-pkg:Main:Memo') });
    expect([r.status, r.json.code]).toEqual([400, 'WRONGLY_TYPED_CONTRACT']);
    r = await prepare({ commands: archive(), actAs: [bob] });
    expect([r.status, r.json.code]).toEqual([400, 'DAML_AUTHORIZATION_ERROR']);
    r = await prepare({ commands: archive(), actAs: [carol] });
    expect([r.status, r.json.code]).toEqual([404, 'CONTRACT_NOT_FOUND']);
    // A non-stakeholder naming the wrong template: not found either (visibility before the template).
    r = await prepare({ commands: archive({}, '#memo-pkg:Main:Other'), actAs: [carol] });
    expect([r.status, r.json.code]).toEqual([404, 'CONTRACT_NOT_FOUND']);
    r = await prepare({ commands: archive({ choiceArgument: { x: 1 } }) });
    expect([r.status, r.json.code]).toEqual([400, 'INVALID_ARGUMENT']);
    r = await prepare({
      commands: archive(),
      synchronizerId: (await ledger.call('GET', '/v2/state/connected-synchronizers')).json.connectedSynchronizers[1]
        .synchronizerId,
    });
    expect([r.status, r.json.code]).toEqual([400, 'NO_SYNCHRONIZER_FOR_SUBMISSION']);
    expect(await ledgerEnd(ledger)).toBe(end);
  });

  it('an archived contract is not found', async () => {
    const r0 = await prepare({ commands: create({ owner: alice }) });
    const id = await commitCreate(decode(r0.json.preparedTransaction));
    await ledger.runtime.db
      .updateTable('contracts')
      .set({ status: 'archived', synchronizer_id: null })
      .where('contract_id', '=', id)
      .execute();
    const r = await prepare({ commands: archive({}, MEMO, id) });
    expect([r.status, r.json.code]).toEqual([404, 'CONTRACT_NOT_FOUND']);
  });
});

describe('prepare rejections', () => {
  it('template id syntax errors are decode errors (400 text/plain)', async () => {
    for (const [tid, at] of [
      ['not-a-valid-template-id', 'commands[0].CreateCommand.templateId'],
      ['a:b:c:d', 'commands[0].CreateCommand.templateId'],
      ['#pkg::Memo', 'commands[0].CreateCommand.templateId'],
    ]) {
      const r = await prepare({ commands: create({ owner: alice }, tid) });
      expect(r.status).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(r.text).toBe(
        `Invalid value for: body (Invalid identifier format (${tid}) not matching the expected format (<package>:<moduleName>:<entityName>) at '${at}')`,
      );
    }
    const r = await prepare({
      commands: [{ ExerciseCommand: { templateId: 'x', contractId: '00', choice: 'Archive', choiceArgument: {} } }],
    });
    expect(r.text).toMatch(/Invalid identifier format \(x\).* at 'commands\[0\]\.ExerciseCommand\.templateId'\)$/);
  });

  it('body decode errors, field errors, unknown parties, authorization', async () => {
    const end = await ledgerEnd(ledger);
    const ok = { commands: create({ owner: alice }) };
    let r = await ledger.call(
      'POST',
      '/v2/interactive-submission/prepare',
      { commands: ok.commands, actAs: [alice] },
      { as: 'wallet' },
    );
    expect(r.text).toBe("Invalid value for: body (Missing required field at 'commandId')");
    r = await prepare({ ...ok, hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V9' });
    expect(r.text).toMatch(/^Invalid value for: body \(Unrecognized enum value HASHING_SCHEME_VERSION_V9\./);
    r = await prepare({ commands: [{ CreateCommand: { templateId: MEMO } }] });
    expect(r.text).toBe(
      "Invalid value for: body (Missing required field at 'commands[0].CreateCommand.createArguments')",
    );
    r = await prepare({ commands: [{ Bogus: {} }] });
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);

    r = await prepare({ ...ok, hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V4' });
    expect([r.status, r.json.code, r.json.context.field_name]).toEqual([
      400,
      'INVALID_FIELD',
      'hashing_scheme_version',
    ]);
    r = await prepare({ ...ok, actAs: [] });
    expect([r.status, r.json.code]).toEqual([400, 'MISSING_FIELD']);
    r = await prepare({ ...ok, commandId: '' });
    expect([r.status, r.json.code]).toEqual([400, 'MISSING_FIELD']);
    r = await prepare({ commands: [] });
    expect([r.status, r.json.code]).toEqual([400, 'MISSING_FIELD']);
    r = await prepare({ commands: [...ok.commands, ...ok.commands] });
    expect([r.status, r.json.code]).toEqual([400, 'FAILED_TO_PREPARE_TRANSACTION']);
    r = await prepare({
      commands: [
        { CreateAndExerciseCommand: { templateId: MEMO, createArguments: {}, choice: 'X', choiceArgument: {} } },
      ],
    });
    expect([r.status, r.json.code]).toEqual([400, 'INVALID_ARGUMENT']);
    r = await prepare({ commands: create([1, 2]) });
    expect([r.status, r.json.code]).toEqual([400, 'INVALID_ARGUMENT']);
    r = await prepare({ ...ok, synchronizerId: 'nope::1220' + '00'.repeat(32) });
    expect([r.status, r.json.code]).toEqual([400, 'NO_SYNCHRONIZER_FOR_SUBMISSION']);
    r = await prepare({ ...ok, synchronizerId: 'garbage' });
    expect([r.status, r.json.code]).toEqual([400, 'INVALID_FIELD']);

    const ghost = 'ghost::1220' + '11'.repeat(32);
    r = await prepare({ ...ok, actAs: [ghost] }, ledger.config.adminUser);
    expect(r.status).toBe(403); // admin has no party rights
    await ledger.call('POST', '/v2/users/wallet/rights', {
      rights: [{ kind: { CanReadAs: { value: { party: ghost } } } }],
    });
    r = await prepare({ ...ok, actAs: [ghost] });
    expect([r.status, r.json.code]).toEqual([404, 'PARTY_NOT_KNOWN_ON_LEDGER']);
    r = await prepare({ ...ok, actAs: ['bad party'] });
    expect([r.status, r.json.code]).toEqual([403, 'NA']);
    r = await prepare({ ...ok, userId: 'someone-else' });
    expect(r.status).toBe(403);
    expect(await ledgerEnd(ledger)).toBe(end);
  });
});

describe('prepare: the traffic cost estimate', () => {
  const memo = { owner: alice, text: 'cost' };
  // docs/using-the-api.md: request = (prepared bytes + Σ signature envelopes) to 2 recipients, at Canton's defaults.
  const requestCost = (preparedB64: string, signatureSizes: number[]) =>
    envelopeCost(
      Buffer.from(preparedB64, 'base64').length + signatureSizes.reduce((s, n) => s + signatureEnvelopeBytes(n), 0),
      2,
      DEFAULT_TRAFFIC_PARAMETERS,
    );

  it('is answered by default: the request with the external party’s threshold signatures, and the response', async () => {
    const before = Date.now();
    const r = await prepare({ commands: create({ ...memo, owner: alice }) });
    expect(r.status, r.text).toBe(200);
    const c = r.json.costEstimation;
    expect(Object.keys(c).sort()).toEqual([
      'confirmationRequestTrafficCostEstimation',
      'confirmationResponseTrafficCostEstimation',
      'estimationTimestamp',
      'totalTrafficCostEstimation',
    ]);
    // alice registered one Ed25519 key (threshold 1): one 64-byte signature.
    expect(c.confirmationRequestTrafficCostEstimation).toBe(requestCost(r.json.preparedTransaction, [64]));
    expect(c.confirmationResponseTrafficCostEstimation).toBeGreaterThan(0);
    expect(c.totalTrafficCostEstimation).toBe(
      c.confirmationRequestTrafficCostEstimation + c.confirmationResponseTrafficCostEstimation,
    );
    expect(Date.parse(c.estimationTimestamp)).toBeGreaterThanOrEqual(before - 1000);
  });

  it('with expected signatures: those, whatever the registered keys; a local party signs nothing', async () => {
    let r = await prepare({
      commands: create({ ...memo, owner: alice }),
      estimateTrafficCost: {
        expectedSignatures: ['SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384', 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256'],
      },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.costEstimation.confirmationRequestTrafficCostEstimation).toBe(
      requestCost(r.json.preparedTransaction, [96, 64]),
    );
    r = await prepare({ commands: create({ ...memo, owner: carol }), actAs: [carol] });
    expect(r.status, r.text).toBe(200);
    expect(r.json.costEstimation.confirmationRequestTrafficCostEstimation).toBe(
      requestCost(r.json.preparedTransaction, []),
    );
  });

  it('disabled: no estimate; unsupported algorithms are INVALID_FIELD, unknown names a decode error', async () => {
    let r = await prepare({
      commands: create({ ...memo, owner: alice }),
      estimateTrafficCost: { disabled: true, expectedSignatures: ['SIGNING_ALGORITHM_SPEC_ML_DSA_65'] },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.costEstimation).toBeUndefined();
    expect(r.json.preparedTransaction).toBeTruthy();
    const end = await ledgerEnd(ledger);
    for (const spec of ['SIGNING_ALGORITHM_SPEC_ML_DSA_65', 'SIGNING_ALGORITHM_SPEC_UNSPECIFIED']) {
      r = await prepare({
        commands: create({ ...memo, owner: alice }),
        estimateTrafficCost: { expectedSignatures: [spec] },
      });
      expect([r.status, r.json.code]).toEqual([400, 'INVALID_FIELD']);
      expect(r.json.cause).toContain(`estimate_traffic_cost`);
      expect(r.json.cause).toContain(`Signing algorithm spec ${spec} not supported`);
    }
    r = await prepare({
      commands: create({ ...memo, owner: alice }),
      estimateTrafficCost: { expectedSignatures: ['RSA'] },
    });
    expect(r.status).toBe(400);
    expect(r.text).toContain('Unrecognized enum value RSA');
    expect(await ledgerEnd(ledger)).toBe(end);
  });
});
