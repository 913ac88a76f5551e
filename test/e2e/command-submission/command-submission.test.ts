import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ErrorInfo } from '@canton-network/core-ledger-proto';
import { parseIsoMicros } from '@ledgerline/domain';
import { InFlightSubmissions } from '@ledgerline/server/modules/transaction-submission/in-flight-submissions';
import { CommandsInterpretation } from '@ledgerline/server/modules/command-submission/commands-interpretation';
import { expectCantonError } from '../../support/canton-error';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import { defaultSynchronizer, ledgerEnd, onboardExternalParty } from '../../support/external-party';

/**
 * Command submission for local parties: submit-and-wait and its variants, async submit; answers, the generic template
 * model on this path, every rejection in its order with its code, and what a rejection leaves behind (nothing, or a
 * rejected completion).
 */
let ledger: TestLedger;
let sync: string;
let alice: string;
let bob: string;
let carol: string;
let ext: string;
const MEMO = '#memo-pkg:Main:Memo';

beforeAll(async () => {
  ledger = await startTestLedger({ LEDGER_SYNCHRONIZERS: 'global,secondary' });
  sync = await defaultSynchronizer(ledger);
  const local = async (hint: string) =>
    (await ledger.call('POST', '/v2/parties', { partyIdHint: hint, synchronizerId: sync })).json.partyDetails
      .party as string;
  alice = await local('alice');
  bob = await local('bob');
  carol = await local('carol');
  ext = (await onboardExternalParty(ledger, 'ext')).partyId;
  const act = (party: string) => ({ kind: { CanActAs: { value: { party } } } });
  await ledger.call('POST', '/v2/users', { user: { id: 'app' }, rights: [act(alice), act(bob), act(ext)] });
  await ledger.call('POST', '/v2/users', {
    user: { id: 'reader' },
    rights: [{ kind: { CanReadAs: { value: { party: alice } } } }],
  });
  await ledger.call('POST', '/v2/users', { user: { id: 'nobody' } });
  await ledger.call('POST', '/v2/users', {
    user: { id: 'any' },
    rights: [{ kind: { CanActAsAnyParty: { value: {} } } }],
  });
});
afterAll(async () => {
  await ledger?.close();
});

let n = 0;
const cmdId = () => `cmd-${Date.now()}-${n++}`;
const create = (args: unknown = { owner: alice }, templateId = MEMO) => ({
  CreateCommand: { templateId, createArguments: args },
});
const archive = (contractId: string, templateId = MEMO, choice = 'Archive') => ({
  ExerciseCommand: { templateId, contractId, choice, choiceArgument: {} },
});
const commands = (cmds: unknown[], over: Record<string, unknown> = {}) => ({
  commands: cmds,
  commandId: cmdId(),
  actAs: [alice],
  ...over,
});
const post = (path: string, body: unknown, as: string | null = 'app') =>
  ledger.call('POST', `/v2/commands/${path}`, body, { as });
const submitAndWait = (body: unknown, as?: string | null) => post('submit-and-wait', body, as);

async function createdContract(args: unknown = { owner: alice, note: 'n' }, actAs = [alice]): Promise<string> {
  const r = await post('submit-and-wait-for-transaction', { commands: commands([create(args)], { actAs }) });
  expect(r.status, r.text).toBe(200);
  return r.json.transaction.events[0].CreatedEvent.contractId;
}

/** Asserts a synchronous rejection: the code and status, and an unchanged ledger end (no completion). */
async function refused(path: string, body: unknown, status: number, code: string, as: string | null = 'app') {
  const before = await ledgerEnd(ledger);
  const r = await post(path, body, as);
  expectCantonError(r, status, code);
  expect(await ledgerEnd(ledger)).toBe(before);
  return r.json;
}

describe('submit-and-wait and its variants', () => {
  it('submit-and-wait creates; the completion offset is the transaction offset; the contract is active', async () => {
    const commandId = cmdId();
    const r = await submitAndWait({
      commands: [create({ owner: alice, reader: bob, n: 3 })],
      commandId,
      actAs: [alice],
      workflowId: 'wf-1',
    });
    expect(r.status, r.text).toBe(200);
    expect(Object.keys(r.json).sort()).toEqual(['completionOffset', 'updateId']);
    expect(r.json.updateId).toMatch(/^1220[0-9a-f]{64}$/);
    expect(await ledgerEnd(ledger)).toBe(r.json.completionOffset);
    const tx = (
      await ledger.call(
        'POST',
        '/v2/updates/transaction-by-id',
        { updateId: r.json.updateId, requestingParties: [alice] },
        { as: 'app' },
      )
    ).json.transaction;
    expect(tx).toMatchObject({
      updateId: r.json.updateId,
      offset: r.json.completionOffset,
      commandId,
      workflowId: 'wf-1',
      externalTransactionHash: null,
    });
    const ev = tx.events[0].CreatedEvent;
    expect(ev).toMatchObject({
      signatories: [alice],
      observers: [bob],
      packageName: 'memo-pkg',
      createArgument: { owner: alice, reader: bob, n: '3' },
    });
    // bob (an observer) sees it, but not the command id (not a submitter).
    const asBob = (
      await ledger.call(
        'POST',
        '/v2/updates/transaction-by-id',
        { updateId: r.json.updateId, requestingParties: [bob] },
        { as: 'app' },
      )
    ).json.transaction;
    expect([asBob.commandId, asBob.workflowId]).toEqual(['', 'wf-1']);
  });

  it('submit-and-wait-for-transaction: the default format (ACS_DELTA, actAs and readAs), a given format, and events: [] for a format that sees nothing', async () => {
    let r = await post('submit-and-wait-for-transaction', { commands: commands([create({ owner: alice })]) });
    expect(r.status, r.text).toBe(200);
    expect(r.json.transaction.events).toHaveLength(1);
    expect(r.json.transaction.transactionHash).toBeNull();
    const cid = r.json.transaction.events[0].CreatedEvent.contractId;
    const effects = {
      transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
      eventFormat: { filtersByParty: { [alice]: { cumulative: [] } }, verbose: true },
    };
    r = await post('submit-and-wait-for-transaction', {
      commands: commands([archive(cid)]),
      transactionFormat: effects,
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.transaction.events.map((e: object) => Object.keys(e)[0])).toEqual(['ExercisedEvent']);
    expect(r.json.transaction.events[0].ExercisedEvent).toMatchObject({
      choice: 'Archive',
      consuming: true,
      actingParties: [alice],
      acsDelta: true,
    });
    // A format naming only a non-stakeholder: the transaction with no events.
    r = await post('submit-and-wait-for-transaction', {
      commands: commands([create({ owner: alice })]),
      transactionFormat: {
        transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
        eventFormat: { filtersByParty: { [bob]: { cumulative: [] } } },
      },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.transaction.events).toEqual([]);
    expect(r.json.transaction.updateId).toMatch(/^1220/);
    // The format is validated (after authorization): empty filters, no shape.
    await refused(
      'submit-and-wait-for-transaction',
      {
        commands: commands([create()]),
        transactionFormat: { transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA', eventFormat: {} },
      },
      400,
      'INVALID_ARGUMENT',
    );
    await refused(
      'submit-and-wait-for-transaction',
      {
        commands: commands([create()]),
        transactionFormat: {
          transactionShape: 'TRANSACTION_SHAPE_UNSPECIFIED',
          eventFormat: { filtersByParty: { [alice]: {} } },
        },
      },
      400,
      'MISSING_FIELD',
    );
    // Reading through the format needs ReadAs for its parties.
    await refused(
      'submit-and-wait-for-transaction',
      {
        commands: commands([create()]),
        transactionFormat: {
          transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
          eventFormat: { filtersByParty: { [carol]: {} } },
        },
      },
      403,
      'NA',
    );
  });

  it('CreateAndExercise with Archive: a transient contract (no ACS effect; LEDGER_EFFECTS shows both events, the observers kept)', async () => {
    const begin = await ledgerEnd(ledger);
    const body = {
      commands: commands([
        {
          CreateAndExerciseCommand: {
            templateId: MEMO,
            createArguments: { owner: alice, reader: bob },
            choice: 'Archive',
            choiceArgument: {},
          },
        },
      ]),
    };
    let r = await post('submit-and-wait-for-transaction', body);
    expect(r.status, r.text).toBe(200);
    expect(r.json.transaction.events).toEqual([]);
    const updateId = r.json.transaction.updateId;
    const effects = {
      transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
      eventFormat: { filtersByParty: { [alice]: {} } },
    };
    r = await ledger.call(
      'POST',
      '/v2/updates/transaction-by-id',
      { updateId, transactionFormat: effects },
      { as: 'app' },
    );
    const [c, x] = r.json.transaction.events;
    expect(c.CreatedEvent).toMatchObject({ acsDelta: false, signatories: [alice], observers: [bob] });
    // The observer sees the create and the consuming exercise (an informee of it).
    const asBob = await ledger.call(
      'POST',
      '/v2/updates/transaction-by-id',
      { updateId, transactionFormat: { ...effects, eventFormat: { filtersByParty: { [bob]: {} } } } },
      { as: 'app' },
    );
    expect(asBob.json.transaction.events.map((e: any) => Object.keys(e)[0])).toEqual([
      'CreatedEvent',
      'ExercisedEvent',
    ]);
    expect(asBob.json.transaction.events[0].CreatedEvent.observers).toEqual([bob]);
    expect(x.ExercisedEvent).toMatchObject({
      contractId: c.CreatedEvent.contractId,
      choice: 'Archive',
      consuming: true,
      acsDelta: false,
      nodeId: 1,
    });
    r = await ledger.call(
      'POST',
      '/v2/updates/transaction-by-id',
      { updateId, requestingParties: [alice] },
      { as: 'app' },
    );
    expect(r.json.code).toBe('UPDATE_NOT_FOUND');
    r = await ledger.call(
      'POST',
      '/v2/updates/flats',
      { beginExclusive: begin, endInclusive: await ledgerEnd(ledger), filter: { filtersByParty: { [alice]: {} } } },
      { as: 'app' },
    );
    expect(r.json).toEqual([]);
    // Known as archived at its own offset (events by contract id answer for it), never active.
    const rows = await ledger.runtime.db
      .selectFrom('contracts')
      .select(['status', 'created_offset', 'archived_offset', 'synchronizer_id'])
      .where('contract_id', '=', c.CreatedEvent.contractId)
      .execute();
    expect(rows).toEqual([
      { status: 'archived', created_offset: begin + 1, archived_offset: begin + 1, synchronizer_id: null },
    ]);
  });

  it('submit-and-wait-for-transaction-tree: LEDGER_EFFECTS for the actAs parties, events by node id', async () => {
    const r = await post(
      'submit-and-wait-for-transaction-tree',
      commands([create({ owner: alice }), create({ owner: alice, x: 1 })]),
    );
    expect(r.status, r.text).toBe(200);
    const t = r.json.transactionTree;
    expect(Object.keys(t.eventsById)).toEqual(['0', '1']);
    expect(t.eventsById['1'].CreatedTreeEvent.value.createArgument).toEqual({ owner: alice, x: '1' });
    expect(t).toMatchObject({
      updateId: expect.stringMatching(/^1220/),
      offset: await ledgerEnd(ledger),
      synchronizerId: sync,
    });
  });

  it('async/submit answers {} once decided; the completion follows', async () => {
    const before = await ledgerEnd(ledger);
    const body = commands([create()]);
    const r = await post('async/submit', body);
    expect([r.status, r.json]).toEqual([200, {}]);
    const list = await ledger.call(
      'POST',
      '/v2/commands/completions?limit=10&stream_idle_timeout_ms=200',
      { userId: 'app', parties: [alice], beginExclusive: before },
      { as: 'app' },
    );
    const done = list.json
      .filter((e: any) => e.completionResponse.Completion)
      .map((e: any) => e.completionResponse.Completion.value);
    expect(done).toHaveLength(1);
    expect(done[0]).toMatchObject({
      commandId: body.commandId,
      userId: 'app',
      actAs: [alice],
      status: { code: 0, message: '', details: [] },
      offset: before + 1,
    });
    expect(done[0].submissionId).toMatch(/[0-9a-f-]{36}/);
    expect(done[0].deduplicationPeriod).toEqual({ DeduplicationDuration: { value: { seconds: 604800, nanos: 0 } } });
  });

  it('minLedgerTimeRel: the effective time is not before the bound', async () => {
    const t0 = BigInt(Date.now()) * 1000n;
    const r = await post('submit-and-wait-for-transaction', {
      commands: commands([create()], { minLedgerTimeRel: { seconds: 5 } }),
    });
    expect(r.status, r.text).toBe(200);
    expect(parseIsoMicros(r.json.transaction.effectiveAt)).toBeGreaterThanOrEqual(t0 + 5_000_000n);
  });
});

describe('committed contract ids (generic template model): Canton’s V12 suffix', () => {
  const SUFFIXED = /^00[0-9a-f]{64}ca121220[0-9a-f]{64}$/;

  it('submit-and-wait-for-transaction: every created id is suffixed; CreateAndExercise exercises the suffixed id; the blob holds it', async () => {
    const r = await post('submit-and-wait-for-transaction', {
      commands: commands([
        create({ owner: alice, note: 'a' }),
        {
          CreateAndExerciseCommand: {
            templateId: MEMO,
            createArguments: { owner: alice },
            choice: 'Archive',
            choiceArgument: {},
          },
        },
      ]),
      transactionFormat: {
        transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
        eventFormat: { filtersByParty: { [alice]: {} }, verbose: true },
      },
    });
    expect(r.status, r.text).toBe(200);
    const [first, second, exercised] = r.json.transaction.events;
    for (const c of [first.CreatedEvent, second.CreatedEvent]) expect(c.contractId).toMatch(SUFFIXED);
    expect(first.CreatedEvent.contractId).not.toBe(second.CreatedEvent.contractId);
    expect(exercised.ExercisedEvent.contractId).toBe(second.CreatedEvent.contractId);
    const stored = await ledger.runtime.db
      .selectFrom('contracts')
      .select('contract_id')
      .where('contract_id', '=', first.CreatedEvent.contractId)
      .execute();
    expect(stored).toHaveLength(1);
  });

  it('async/submit commits the suffixed id', async () => {
    const body = commands([create()]);
    expect((await post('async/submit', body)).status).toBe(200);
    const row = await ledger.runtime.db
      .selectFrom('ledger_updates')
      .select('payload')
      .where('command_id', '=', body.commandId)
      .executeTakeFirstOrThrow();
    expect((row.payload as any).events[0].CreatedEvent.contractId).toMatch(SUFFIXED);
  });

  it('the local id of a committed contract is refused as Canton’s preprocessor does; the suffixed id archives it', async () => {
    const cid = await createdContract();
    expect(cid).toMatch(SUFFIXED);
    const local = cid.slice(0, 66);
    const refusal = await refused('submit-and-wait', commands([archive(local)]), 400, 'COMMAND_PREPROCESSING_FAILED');
    expect(refusal.cause).toBe(`Illegal Contract ID "${local}", non-suffixed V1 Contract IDs are forbidden`);
    expect((await submitAndWait(commands([archive(cid)]))).status).toBe(200);
  });

  it('a contract stored with an unsuffixed id before ids were suffixed keeps it and can still be archived by it', async () => {
    const cid = await createdContract();
    const local = cid.slice(0, 66);
    // Give the stored contract the id shape committed before suffixing.
    await sql`UPDATE contracts SET contract_id = ${local}, created_event = jsonb_set(created_event, '{contractId}', to_jsonb(${local}::text)) WHERE contract_id = ${cid}`.execute(
      ledger.runtime.db,
    );
    await sql`UPDATE contract_activations SET contract_id = ${local} WHERE contract_id = ${cid}`.execute(
      ledger.runtime.db,
    );
    expect((await submitAndWait(commands([archive(local)]))).status).toBe(200);
  });
});

describe('synchronous rejections: the reference order, no completion, the ledger end unchanged', () => {
  it('the JSON layer: decode errors, actAs, another choice — before authorization', async () => {
    let r = await post('submit-and-wait', { commands: [create()], actAs: [alice] });
    expect([r.status, r.text]).toEqual([400, "Invalid value for: body (Missing required field at 'commandId')"]);
    r = await post('submit-and-wait-for-transaction', {
      commands: {
        commands: [{ CreateCommand: { templateId: 'x', createArguments: {} } }],
        commandId: 'c',
        actAs: [alice],
      },
    });
    expect(r.text).toMatch(
      /^Invalid value for: body \(Invalid identifier format \(x\).* at 'commands\.commands\[0\]\.CreateCommand\.templateId'\)$/,
    );
    expect(
      (await refused('submit-and-wait', commands([create()], { actAs: [] }), 400, 'MISSING_FIELD')).cause,
    ).toContain('act_as');
    await refused('submit-and-wait', commands([create()], { actAs: ['no-namespace'] }), 400, 'INVALID_ARGUMENT');
    const cause = (
      await refused(
        'submit-and-wait',
        commands([archive('00' + 'ab'.repeat(32), MEMO, 'Transfer')]),
        400,
        'INVALID_ARGUMENT',
        'nobody',
      )
    ).cause;
    expect(cause).toMatch(/Choice 'Transfer' .*does not run Daml code.*executeAndWait/);
    const cae = {
      CreateAndExerciseCommand: { templateId: MEMO, createArguments: {}, choice: 'Give', choiceArgument: {} },
    };
    await refused('async/submit', commands([cae]), 400, 'INVALID_ARGUMENT');
    await refused(
      'submit-and-wait',
      commands([{ ExerciseByKeyCommand: { templateId: MEMO, contractKey: {}, choice: 'Give', choiceArgument: {} } }]),
      400,
      'INVALID_ARGUMENT',
    );
    expect(
      (
        await refused(
          'submit-and-wait',
          commands([
            { ExerciseByKeyCommand: { templateId: MEMO, contractKey: {}, choice: 'Archive', choiceArgument: {} } },
          ]),
          400,
          'INVALID_ARGUMENT',
        )
      ).cause,
    ).toContain('contract keys');
  });

  it('authorization: CanActAs per actAs party, ReadAs for readAs, the user id; then validation', async () => {
    await refused('submit-and-wait', commands([create()], { commandId: '' }), 403, 'NA', 'nobody');
    await refused('submit-and-wait', commands([create()]), 403, 'NA', 'reader');
    await refused('async/submit', commands([create()]), 403, 'NA', ledger.config.adminUser);
    await refused('submit-and-wait', commands([create()], { readAs: [carol] }), 403, 'NA');
    await refused('submit-and-wait', commands([create()], { userId: 'someone-else' }), 403, 'NA');
    expect((await post('submit-and-wait', commands([create()], { userId: 'app' }))).status).toBe(200);
  });

  it('validation, in order', async () => {
    await refused('submit-and-wait', commands([create()], { workflowId: 'bad\u0001' }), 400, 'INVALID_FIELD');
    expect(
      (await refused('submit-and-wait', commands([create()], { commandId: '' }), 400, 'MISSING_FIELD')).context
        .field_name,
    ).toBe('command_id');
    await refused('submit-and-wait', commands([create()], { submissionId: 'bad\u0001' }), 400, 'INVALID_FIELD');
    await refused(
      'submit-and-wait',
      commands([create()], { readAs: ['no-namespace'] }),
      400,
      'INVALID_ARGUMENT',
      'any',
    );
    expect(
      (await refused('submit-and-wait', commands([create()], { synchronizerId: 'garbage' }), 400, 'INVALID_FIELD'))
        .cause,
    ).toContain('missing namespace');
    await refused('submit-and-wait', commands([]), 400, 'MISSING_FIELD');
    await refused('submit-and-wait', commands([archive('not-a-contract-id')]), 400, 'INVALID_FIELD');
    await refused(
      'submit-and-wait',
      commands([create()], { minLedgerTimeAbs: new Date().toISOString(), minLedgerTimeRel: { seconds: 1 } }),
      400,
      'INVALID_ARGUMENT',
    );
    await refused(
      'submit-and-wait',
      commands([create()], { deduplicationPeriod: { DeduplicationDuration: { value: { seconds: -1 } } } }),
      400,
      'INVALID_FIELD',
    );
    await refused(
      'submit-and-wait',
      commands([create()], { deduplicationPeriod: { DeduplicationOffset: { value: -1 } } }),
      400,
      'NEGATIVE_OFFSET',
    );
    await refused('submit-and-wait', commands([create()], { tapsMaxPasses: 0 }), 400, 'INVALID_ARGUMENT');
    await refused(
      'submit-and-wait',
      commands([create()], { prefetchContractKeys: [{ templateId: MEMO, contractKey: {}, limit: 0 }] }),
      400,
      'INVALID_ARGUMENT',
    );
  });

  it('interpretation and routing: contracts, Daml authorization, submitters, the prescribed synchronizer', async () => {
    const cid = await createdContract({ owner: alice, reader: bob });
    const unknown = '00' + 'cd'.repeat(32) + 'ca121220' + 'ef'.repeat(32);
    expect(
      (await refused('submit-and-wait', commands([archive(unknown)]), 404, 'CONTRACT_NOT_FOUND')).resources,
    ).toEqual([['CONTRACT_ID', unknown]]);
    // An observer cannot archive; a party that does not see the contract does not find it.
    await refused('submit-and-wait', commands([archive(cid)], { actAs: [bob] }), 400, 'DAML_AUTHORIZATION_ERROR');
    await ledger.call('POST', '/v2/users/app/rights', {
      rights: [{ kind: { CanActAs: { value: { party: carol } } } }],
    });
    await refused('submit-and-wait', commands([archive(cid)], { actAs: [carol] }), 404, 'CONTRACT_NOT_FOUND');
    // No existence probing: a non-stakeholder naming the wrong template learns nothing either (visibility comes first).
    const probe = await refused(
      'submit-and-wait',
      commands([archive(cid, '#memo-pkg:Main:Other')], { actAs: [carol] }),
      404,
      'CONTRACT_NOT_FOUND',
    );
    expect(probe.cause).not.toContain('Main:Memo');
    expect(
      (
        await refused(
          'submit-and-wait',
          commands([archive(unknown, '#memo-pkg:Main:Other')], { actAs: [carol] }),
          404,
          'CONTRACT_NOT_FOUND',
        )
      ).cause,
    ).toBe(probe.cause.replace(cid, unknown));
    await refused('submit-and-wait', commands([archive(cid), archive(cid)]), 404, 'CONTRACT_NOT_ACTIVE');
    await refused('submit-and-wait', commands([archive(cid, '#memo-pkg:Main:Other')]), 400, 'WRONGLY_TYPED_CONTRACT');
    // Submitters: an external party submits through prepare and execute; an unknown party is unknown.
    await refused(
      'submit-and-wait',
      commands([create({ owner: ext })], { actAs: [ext] }),
      404,
      'NO_SYNCHRONIZER_ON_WHICH_ALL_SUBMITTERS_CAN_SUBMIT',
    );
    const ghost = 'ghost::1220' + '11'.repeat(32);
    await ledger.call('POST', '/v2/users/app/rights', {
      rights: [{ kind: { CanActAs: { value: { party: ghost } } } }],
    });
    await refused(
      'submit-and-wait',
      commands([create({ owner: ghost })], { actAs: [ghost] }),
      404,
      'UNKNOWN_SUBMITTERS',
    );
    await refused(
      'submit-and-wait',
      commands([create()], { synchronizerId: 'nope::1220' + '00'.repeat(32) }),
      400,
      'INVALID_PRESCRIBED_SYNCHRONIZER_ID',
    );
    // Archived: not found (synchronously).
    expect((await submitAndWait(commands([archive(cid)]))).status).toBe(200);
    await refused('async/submit', commands([archive(cid)]), 404, 'CONTRACT_NOT_FOUND');
  });
});

const completionsAfter = async (begin: number, parties = [alice]) =>
  (
    await ledger.call(
      'POST',
      '/v2/commands/completions?stream_idle_timeout_ms=200',
      { userId: 'app', parties, beginExclusive: begin },
      { as: 'app' },
    )
  ).json
    .filter((e: any) => e.completionResponse.Completion)
    .map((e: any) => e.completionResponse.Completion.value);

describe('deduplication across sync, async and interactive submissions', () => {
  it('a duplicate through submit-and-wait is 409 DUPLICATE_COMMAND with the completion offset, a rejected completion and no transaction', async () => {
    const commandId = cmdId();
    const first = await submitAndWait(commands([create()], { commandId }));
    const before = await ledgerEnd(ledger);
    const dup = await submitAndWait(commands([create()], { commandId, submissionId: 'second' }));
    expect([dup.status, dup.json.code, dup.json.context.completion_offset]).toEqual([
      409,
      'DUPLICATE_COMMAND',
      String(first.json.completionOffset),
    ]);
    expect(await ledgerEnd(ledger)).toBe(before + 1);
    const [c] = await completionsAfter(before);
    expect(c).toMatchObject({
      commandId,
      submissionId: 'second',
      updateId: '',
      offset: before + 1,
      deduplicationPeriod: { DeduplicationOffset: { value: first.json.completionOffset - 1 } },
    });
    expect(c.status.code).toBe(6);
    expect(c.status.message).toMatch(/^DUPLICATE_COMMAND\(10,second\): /);
    const info = ErrorInfo.fromBinary(
      Buffer.from(
        c.status.details.find((d: any) => d.typeUrl === 'type.googleapis.com/google.rpc.ErrorInfo').value,
        'base64',
      ),
    );
    expect(info.reason).toBe('DUPLICATE_COMMAND');
    expect(info.metadata).toMatchObject({ category: '10', completion_offset: String(first.json.completionOffset) });
    // Another user or another actAs set is another change.
    expect(
      (await submitAndWait(commands([create({ owner: alice, o: bob })], { commandId, actAs: [alice, bob] }))).status,
    ).toBe(200);
  });

  it('a duplicate through async/submit is accepted ({}) and ends in a rejected completion', async () => {
    const commandId = cmdId();
    await post('async/submit', commands([create()], { commandId }));
    const before = await ledgerEnd(ledger);
    expect((await post('async/submit', commands([create()], { commandId }))).json).toEqual({});
    const [c] = await completionsAfter(before);
    expect([c.commandId, c.status.code]).toEqual([commandId, 6]);
  });

  it('one change id submitted concurrently through submit-and-wait and async/submit → one transaction', async () => {
    const commandId = cmdId();
    const before = await ledgerEnd(ledger);
    const rs = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        post(i % 2 ? 'async/submit' : 'submit-and-wait', commands([create()], { commandId })),
      ),
    );
    for (const r of rs) expect([200, 409], r.text).toContain(r.status);
    for (const r of rs.filter((x) => x.status === 409))
      expect(['DUPLICATE_COMMAND', 'SUBMISSION_ALREADY_IN_FLIGHT']).toContain(r.json.code);
    const updates = await ledger.runtime.db
      .selectFrom('ledger_updates')
      .select('command_id')
      .where('ledger_offset', '>', before)
      .execute();
    expect(updates.filter((u) => u.command_id === commandId)).toHaveLength(1);
    const done = await completionsAfter(before);
    expect(done.filter((c: any) => c.status.code === 0)).toHaveLength(1);
  });
});

describe('in flight: SUBMISSION_ALREADY_IN_FLIGHT is synchronous; a locked input is a rejected completion', () => {
  /** Holds the writer (the ledger head's row lock), so that submissions stay in flight until `release`. */
  async function holdWriter(): Promise<() => Promise<void>> {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const done = ledger.runtime.db.transaction().execute(async (trx) => {
      await sql`SELECT 1 FROM ledger_head WHERE id = 1 FOR UPDATE`.execute(trx);
      locked();
      await released;
    });
    await isLocked;
    return async () => {
      release();
      await done;
    };
  }

  /** Counts the submissions that reached the in-flight registration. */
  function countHandOvers(): { count: () => number; restore: () => void } {
    const inFlight = ledger.app.get(InFlightSubmissions, { strict: false });
    const register = inFlight.register;
    let n = 0;
    inFlight.register = (...args: Parameters<InFlightSubmissions['register']>) => {
      n++;
      return register.apply(inFlight, args);
    };
    return { count: () => n, restore: () => (inFlight.register = register) };
  }

  async function until(cond: () => boolean): Promise<void> {
    for (let i = 0; i < 1000 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(cond()).toBe(true);
  }

  it('one change in flight: every other submission of it → 409 at once from every endpoint, no completion, the ledger end unchanged', async () => {
    const commandId = cmdId();
    const before = await ledgerEnd(ledger);
    const handOvers = countHandOvers();
    const release = await holdWriter();
    let first: Promise<{ status: number; json: any }>;
    try {
      first = submitAndWait(commands([create()], { commandId, submissionId: 's1' }));
      await until(() => handOvers.count() === 1);
      // While the first is held in the writer: the same submission id tracked twice, async/submit and another
      // submission id of a waiting call are all refused at once.
      for (const [path, submissionId] of [
        ['submit-and-wait-for-transaction', 's1'],
        ['async/submit', 's2'],
        ['submit-and-wait', 's3'],
        ['submit-and-wait-for-transaction-tree', 's4'],
      ]) {
        const body = commands([create()], { commandId, submissionId });
        const r = await post(path, path === 'submit-and-wait-for-transaction' ? { commands: body } : body);
        expect([r.status, r.json.code], `${path} ${r.text}`).toEqual([409, 'SUBMISSION_ALREADY_IN_FLIGHT']);
        expect(r.json.cause).toMatch(/already in.flight/);
      }
      expect(await ledgerEnd(ledger)).toBe(before);
    } finally {
      handOvers.restore();
      await release();
    }
    const done = await first;
    expect(done.status, JSON.stringify(done.json)).toBe(200);
    expect(await ledgerEnd(ledger)).toBe(before + 1);
    const completions = await completionsAfter(before);
    expect(completions.map((c: any) => [c.submissionId, c.status.code])).toEqual([['s1', 0]]);
  });

  it('a consumed input locked by a submission in flight → LOCAL_VERDICT_LOCKED_CONTRACTS, a rejected completion', async () => {
    const cid = await createdContract();
    const before = await ledgerEnd(ledger);
    const handOvers = countHandOvers();
    const release = await holdWriter();
    let pending: Array<Promise<{ status: number; json: any }>>;
    try {
      const first = submitAndWait(commands([archive(cid)], { submissionId: 'a1' }));
      await until(() => handOvers.count() === 1);
      pending = [first, submitAndWait(commands([archive(cid)], { submissionId: 'a2' }))];
      await until(() => handOvers.count() === 2);
    } finally {
      handOvers.restore();
      await release();
    }
    const [won, lost] = await Promise.all(pending);
    expect(won.status, JSON.stringify(won.json)).toBe(200);
    expect([lost.status, lost.json.code]).toEqual([409, 'LOCAL_VERDICT_LOCKED_CONTRACTS']);
    expect((await completionsAfter(before)).map((c: any) => [c.submissionId, c.status.code]).sort()).toEqual([
      ['a1', 0],
      ['a2', 10],
    ]);
  });
});

describe('routing: input contracts already known inactive when the transaction is routed', () => {
  /**
   * Runs `meanwhile` after the transaction builder has read the exercised contracts (as active) and before the
   * submission is routed: the window between Canton's interpretation and its routing.
   */
  function betweenBuildAndRouting(meanwhile: () => Promise<void>): () => void {
    const handler = ledger.app.get(CommandsInterpretation, { strict: false }) as unknown as {
      contracts: { getMany: (...a: unknown[]) => Promise<unknown> };
    };
    const getMany = handler.contracts.getMany;
    handler.contracts.getMany = async (...args: unknown[]) => {
      const read = await getMany.apply(handler.contracts, args);
      handler.contracts.getMany = getMany;
      await meanwhile();
      return read;
    };
    return () => (handler.contracts.getMany = getMany);
  }

  it('archived meanwhile → 400 UNKNOWN_CONTRACT_SYNCHRONIZERS naming it and its synchronizer, from async/submit too; no completion', async () => {
    for (const path of ['submit-and-wait', 'async/submit']) {
      const cid = await createdContract();
      let before = 0;
      const restore = betweenBuildAndRouting(async () => {
        expect((await submitAndWait(commands([archive(cid)]))).status).toBe(200);
        before = await ledgerEnd(ledger);
      });
      try {
        const r = await post(path, commands([archive(cid)]));
        expect([r.status, r.json.code], r.text).toEqual([400, 'UNKNOWN_CONTRACT_SYNCHRONIZERS']);
        expect(r.json.errorCategory).toBe(9);
        expect(r.json.cause).toBe(`The following contracts have been archived: List(${cid}) on synchronizer ${sync}.`);
        expect(r.json.resources).toEqual([['CONTRACT_IDS', `[${cid}]`]]);
      } finally {
        restore();
      }
      expect(await ledgerEnd(ledger)).toBe(before);
    }
  });

  it('unassigned meanwhile (in flight between synchronizers) → UNKNOWN_CONTRACT_SYNCHRONIZERS, not found; no completion', async () => {
    const cid = await createdContract();
    const [source, target] = (
      await ledger.call('GET', '/v2/state/connected-synchronizers')
    ).json.connectedSynchronizers.map((c: any) => c.synchronizerId);
    let before = 0;
    const restore = betweenBuildAndRouting(async () => {
      const unassign = {
        reassignmentCommands: {
          commandId: cmdId(),
          submitter: alice,
          commands: [{ command: { UnassignCommand: { value: { contractId: cid, source, target } } } }],
        },
      };
      const u = await ledger.call('POST', '/v2/commands/submit-and-wait-for-reassignment', unassign, { as: 'app' });
      expect(u.status, u.text).toBe(200);
      before = await ledgerEnd(ledger);
    });
    try {
      const r = await submitAndWait(commands([archive(cid)]));
      expect([r.status, r.json.code], r.text).toEqual([400, 'UNKNOWN_CONTRACT_SYNCHRONIZERS']);
      expect(r.json.cause).toBe(
        `The synchronizers for the contracts (${cid}) are currently unknown due to ongoing contract reassignments or disconnected synchronizers.`,
      );
    } finally {
      restore();
    }
    expect(await ledgerEnd(ledger)).toBe(before);
  });
});

describe('races', () => {
  it('8 concurrent archives of one contract, sync and async mixed: exactly one success and one archive; no second success', async () => {
    for (let round = 0; round < 3; round++) {
      const cid = await createdContract();
      const before = await ledgerEnd(ledger);
      const rs = await Promise.all(
        Array.from({ length: 8 }, (_, i) => post(i % 2 ? 'async/submit' : 'submit-and-wait', commands([archive(cid)]))),
      );
      for (const r of rs) expect([200, 400, 404, 409], r.text).toContain(r.status);
      const accepted = rs.filter((r) => r.status === 200).length;
      const updates = await ledger.runtime.db
        .selectFrom('ledger_updates')
        .select('ledger_offset')
        .where('ledger_offset', '>', before)
        .execute();
      expect(updates).toHaveLength(1);
      const completions = (
        await ledger.call(
          'POST',
          '/v2/commands/completions?stream_idle_timeout_ms=200',
          { userId: 'app', parties: [alice], beginExclusive: before },
          { as: 'app' },
        )
      ).json.filter((e: any) => e.completionResponse.Completion);
      const statuses = completions.map((e: any) => e.completionResponse.Completion.value.status.code);
      expect(statuses.filter((c: number) => c === 0)).toHaveLength(1);
      // Every submission accepted for processing has exactly one completion: those answered 200 (a success, or async's
      // {}) and those rejected at commit; a rejection while building (CONTRACT_NOT_FOUND) has none.
      const atCommit = rs.filter((r) => r.status !== 200 && r.json.code.startsWith('LOCAL_VERDICT_')).length;
      expect(completions).toHaveLength(accepted + atCommit);
      const row = await ledger.runtime.db
        .selectFrom('contracts')
        .select('status')
        .where('contract_id', '=', cid)
        .executeTakeFirstOrThrow();
      expect(row.status).toBe('archived');
    }
  });
});
