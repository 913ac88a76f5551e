import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractIdFromSeed } from '@ledgerline/canton';
import type { StoredCreatedEvent } from '@ledgerline/domain';
import { allocateLocalParties, archiveIfActive, createContract, partyId } from '../../support/contracts';
import { expectCantonError } from '../../support/canton-error';
import { startTestLedger, type TestLedger } from '../../support/ledger';

let ledger: TestLedger;
let A: string;
let B: string;
const alice = partyId('alice');
const bob = partyId('bob');
const carol = partyId('carol');
const ISO_MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
let seq = 0;
const cmdId = () => `cmd-${++seq}`;

beforeAll(async () => {
  // Reassignment needs a second synchronizer, one variable away from the default single one.
  ledger = await startTestLedger({ LEDGER_SYNCHRONIZERS: 'global,secondary' });
  [A, B] = ledger.runtime.identity.synchronizers.map((s) => s.id);
  // dave stays unallocated: a stakeholder that is not hosted here.
  await allocateLocalParties(ledger.runtime.eventStore, [alice, bob, carol], ledger.participantId, A);
  const users: Array<[string, unknown[]]> = [
    [
      'alice',
      [{ kind: { CanActAs: { value: { party: alice } } } }, { kind: { CanReadAs: { value: { party: bob } } } }],
    ],
    [
      'alice-all',
      [{ kind: { CanActAs: { value: { party: alice } } } }, { kind: { CanReadAsAnyParty: { value: {} } } }],
    ],
    ['bob', [{ kind: { CanActAs: { value: { party: bob } } } }]],
    ['carol', [{ kind: { CanActAs: { value: { party: carol } } } }]],
    ['alice-reader', [{ kind: { CanReadAs: { value: { party: alice } } } }]],
  ];
  for (const [id, rights] of users)
    expect((await ledger.call('POST', '/v2/users', { user: { id }, rights })).status).toBe(200);
});
afterAll(async () => {
  await ledger?.close();
});

const ledgerEnd = async (): Promise<number> => (await ledger.call('GET', '/v2/state/ledger-end')).json.offset;
const newContract = (seed: string, sync = A, observers = [bob]) =>
  createContract(ledger.runtime.eventStore, { seed, signatories: [alice], observers, synchronizerId: sync });

const byParty = (...parties: string[]) => ({
  filtersByParty: Object.fromEntries(parties.map((p) => [p, { cumulative: [] }])),
});

function unassignBody(
  contractIds: string[],
  o: { submitter?: string; source?: string; target?: string; commandId?: string; eventFormat?: unknown } = {},
) {
  return {
    reassignmentCommands: {
      commandId: o.commandId ?? cmdId(),
      submitter: o.submitter ?? alice,
      commands: contractIds.map((contractId) => ({
        command: { UnassignCommand: { value: { contractId, source: o.source ?? A, target: o.target ?? B } } },
      })),
    },
    ...(o.eventFormat === undefined
      ? { eventFormat: byParty(alice) }
      : o.eventFormat === null
        ? {}
        : { eventFormat: o.eventFormat }),
  };
}

function assignBody(
  reassignmentId: string,
  o: { submitter?: string; source?: string; target?: string; commandId?: string; eventFormat?: unknown } = {},
) {
  return {
    reassignmentCommands: {
      commandId: o.commandId ?? cmdId(),
      submitter: o.submitter ?? alice,
      commands: [
        { command: { AssignCommand: { value: { reassignmentId, source: o.source ?? A, target: o.target ?? B } } } },
      ],
    },
    ...(o.eventFormat === undefined
      ? { eventFormat: byParty(alice) }
      : o.eventFormat === null
        ? {}
        : { eventFormat: o.eventFormat }),
  };
}

const SUBMIT = '/v2/commands/submit-and-wait-for-reassignment';
const submit = (body: unknown, as = 'alice') => ledger.call('POST', SUBMIT, body, { as });

async function contractRow(cid: string) {
  return ledger.runtime.db
    .selectFrom('contracts')
    .select(['status', 'synchronizer_id', 'reassignment_counter'])
    .where('contract_id', '=', cid)
    .executeTakeFirstOrThrow();
}

/** Submits and expects a rejection with this code/status/cause that leaves the ledger end where it was. */
async function rejected(body: unknown, status: number, code: string, cause?: string | RegExp, as = 'alice') {
  const before = await ledgerEnd();
  const r = await submit(body, as);
  expectCantonError(r, status, code, { cause });
  expect(await ledgerEnd()).toBe(before);
  return r.json;
}
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const invalidArg = (msg: string) => `The submitted request has invalid arguments: ${msg}`;

describe('unassign then assign (Canton UnassignmentProcessingSteps, AssignmentValidation)', () => {
  it('moves a contract from A to B: counters 0 → 1 → 1, events field by field, then it is archived on B', async () => {
    const created = await newContract('iou-move');
    const cid = created.contractId;
    expect(await contractRow(cid)).toEqual({ status: 'active', synchronizer_id: A, reassignment_counter: 0 });

    const before = await ledgerEnd();
    const un = await submit(unassignBody([cid], { commandId: 'move-1', eventFormat: byParty(alice) }));
    expect(un.status).toBe(200);
    const r1 = un.json.reassignment;
    expect(Object.keys(r1)).toEqual([
      'updateId',
      'commandId',
      'workflowId',
      'offset',
      'events',
      'traceContext',
      'recordTime',
      'synchronizerId',
      'paidTrafficCost',
    ]);
    expect(r1.updateId).toMatch(/^1220[0-9a-f]{64}$/);
    expect(r1).toMatchObject({
      commandId: 'move-1',
      workflowId: '',
      offset: before + 1,
      synchronizerId: A,
      traceContext: null,
      paidTrafficCost: null,
    });
    expect(r1.recordTime).toMatch(ISO_MICROS);
    expect(r1.events).toHaveLength(1);
    const u = r1.events[0].JsUnassignedEvent.value;
    expect(Object.keys(u)).toEqual([
      'reassignmentId',
      'contractId',
      'templateId',
      'source',
      'target',
      'submitter',
      'reassignmentCounter',
      'assignmentExclusivity',
      'witnessParties',
      'packageName',
      'offset',
      'nodeId',
    ]);
    expect(u.reassignmentId).toMatch(/^001220[0-9a-f]{64}$/);
    expect(u).toMatchObject({
      contractId: cid,
      templateId: created.templateId,
      source: A,
      target: B,
      submitter: alice,
      reassignmentCounter: 1,
      witnessParties: [alice],
      packageName: 'model-tests',
      offset: before + 1,
      nodeId: 0,
    });
    expect(u.assignmentExclusivity).toMatch(ISO_MICROS);
    expect(Date.parse(u.assignmentExclusivity)).toBeGreaterThan(Date.parse(r1.recordTime));
    expect(await contractRow(cid)).toEqual({ status: 'in_flight', synchronizer_id: null, reassignment_counter: 1 });

    // In flight: it cannot be unassigned again, nor used by a transaction (executeAndWait checks activeness the same way).
    await rejected(
      unassignBody([cid]),
      400,
      'INVALID_ARGUMENT',
      invalidArg(
        `Cannot unassign contract \`${cid}\` because it's not active. Current status ReassignedAway(Target(${B}),1)`,
      ),
    );
    await expect(archiveIfActive(ledger.runtime.eventStore, created, A)).rejects.toMatchObject({
      code: 'CONTRACT_NOT_FOUND',
    });
    await expect(archiveIfActive(ledger.runtime.eventStore, created, B)).rejects.toMatchObject({
      code: 'CONTRACT_NOT_FOUND',
    });

    const as = await submit(assignBody(u.reassignmentId, { commandId: 'move-2', eventFormat: byParty(alice, bob) }));
    expect(as.status).toBe(200);
    const r2 = as.json.reassignment;
    expect(r2).toMatchObject({
      commandId: 'move-2',
      workflowId: '',
      offset: before + 2,
      synchronizerId: B,
      traceContext: null,
      paidTrafficCost: null,
    });
    expect(r2.updateId).not.toBe(r1.updateId);
    expect(r2.recordTime >= r1.recordTime).toBe(true);
    expect(r2.events).toHaveLength(1);
    const a = r2.events[0].JsAssignmentEvent;
    expect(Object.keys(a)).toEqual([
      'source',
      'target',
      'reassignmentId',
      'submitter',
      'reassignmentCounter',
      'createdEvent',
    ]);
    expect(a).toMatchObject({
      source: A,
      target: B,
      reassignmentId: u.reassignmentId,
      submitter: alice,
      reassignmentCounter: 1,
    });
    expect(a.createdEvent).toEqual({
      offset: before + 2,
      nodeId: 0,
      contractId: cid,
      templateId: created.templateId,
      contractKey: null,
      contractKeyHash: '',
      createArgument: created.createArgument,
      createdEventBlob: '',
      interfaceViews: [],
      witnessParties: [alice, bob],
      signatories: [alice],
      observers: [bob],
      createdAt: created.createdAt,
      packageName: 'model-tests',
      representativePackageId: created.representativePackageId,
      acsDelta: true,
    });
    expect(await contractRow(cid)).toEqual({ status: 'active', synchronizer_id: B, reassignment_counter: 1 });

    // Completed once: a second assign is refused.
    await rejected(
      assignBody(u.reassignmentId),
      400,
      'INVALID_ARGUMENT',
      invalidArg(`Cannot assign \`${u.reassignmentId}\`: assignment has been completed`),
    );
    // Active on B now: a transaction on B archives it; A no longer has it.
    await expect(archiveIfActive(ledger.runtime.eventStore, created, A)).rejects.toMatchObject({
      code: 'CONTRACT_NOT_FOUND',
    });
    await archiveIfActive(ledger.runtime.eventStore, created, B);
    expect(await contractRow(cid)).toEqual({ status: 'archived', synchronizer_id: null, reassignment_counter: 1 });
    await rejected(
      unassignBody([cid], { source: B, target: A }),
      400,
      'INVALID_ARGUMENT',
      invalidArg(`Cannot unassign contract \`${cid}\` because it's not active. Current status Archived`),
    );
  });

  it('a second round trip raises the counter to 2 and back on A', async () => {
    const created = await newContract('iou-twice');
    const u1 = (await submit(unassignBody([created.contractId]))).json.reassignment.events[0].JsUnassignedEvent.value;
    expect((await submit(assignBody(u1.reassignmentId))).status).toBe(200);
    const u2 = (await submit(unassignBody([created.contractId], { source: B, target: A }))).json.reassignment.events[0]
      .JsUnassignedEvent.value;
    expect(u2.reassignmentCounter).toBe(2);
    expect(u2.reassignmentId).not.toBe(u1.reassignmentId);
    const r = (await submit(assignBody(u2.reassignmentId, { source: B, target: A }))).json.reassignment;
    expect(r.synchronizerId).toBe(A);
    expect(r.events[0].JsAssignmentEvent.reassignmentCounter).toBe(2);
    expect(await contractRow(created.contractId)).toEqual({
      status: 'active',
      synchronizer_id: A,
      reassignment_counter: 2,
    });
  });
});

describe('eventFormat semantics', () => {
  let created: StoredCreatedEvent;
  beforeAll(async () => {
    created = await newContract('iou-format');
  });

  it('omitted eventFormat → committed, with events: []', async () => {
    const before = await ledgerEnd();
    const r = await submit(unassignBody([created.contractId], { eventFormat: null }));
    expect(r.status).toBe(200);
    expect(r.json.reassignment).toMatchObject({ offset: before + 1, events: [], synchronizerId: A });
    expect(await contractRow(created.contractId)).toMatchObject({ status: 'in_flight' });
    const reassignmentId = (
      await ledger.runtime.db
        .selectFrom('reassignments')
        .select('reassignment_id')
        .where('unassigned_offset', '=', before + 1)
        .executeTakeFirstOrThrow()
    ).reassignment_id;

    // Party wildcard with blobs: every stakeholder is a witness and the blob is included.
    const wildcard = {
      filtersForAnyParty: {
        cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: true } } } }],
      },
    };
    const all = await ledger.call('POST', SUBMIT, assignBody(reassignmentId, { eventFormat: wildcard }), {
      as: 'alice-all',
    });
    expect(all.status).toBe(200);
    const ce = all.json.reassignment.events[0].JsAssignmentEvent.createdEvent;
    expect(ce.witnessParties).toEqual([alice, bob]);
    expect(ce.createdEventBlob).toBe(created.createdEventBlob);
  });

  it('filters exclude events: a party that is no stakeholder, or another template → events: []', async () => {
    const c = await newContract('iou-filtered');
    const other = partyId('dave');
    expect(
      (
        await ledger.call('POST', '/v2/users/alice/rights', {
          rights: [{ kind: { CanReadAs: { value: { party: other } } } }],
        })
      ).status,
    ).toBe(200);
    const r = await submit(unassignBody([c.contractId], { eventFormat: byParty(other) }));
    expect(r.status).toBe(200);
    expect(r.json.reassignment.events).toEqual([]);
    const id = (
      await ledger.runtime.db
        .selectFrom('reassignments')
        .select('reassignment_id')
        .where('unassigned_offset', '=', r.json.reassignment.offset)
        .executeTakeFirstOrThrow()
    ).reassignment_id;
    const byTemplate = (t: string) => ({
      filtersByParty: {
        [alice]: {
          cumulative: [
            { identifierFilter: { TemplateFilter: { value: { templateId: t, includeCreatedEventBlob: false } } } },
          ],
        },
      },
    });
    const miss = await submit(assignBody(id, { eventFormat: byTemplate('#model-tests:Iou:Other') }));
    expect(miss.status).toBe(200);
    expect(miss.json.reassignment.events).toEqual([]);
    const c2 = await newContract('iou-template');
    const hit = await submit(unassignBody([c2.contractId], { eventFormat: byTemplate('#model-tests:Iou:Iou') }));
    expect(hit.json.reassignment.events[0].JsUnassignedEvent.value.witnessParties).toEqual([alice]);
  });

  it('async submit answers {} once committed', async () => {
    const c = await newContract('iou-async');
    const before = await ledgerEnd();
    const r = await ledger.call(
      'POST',
      '/v2/commands/async/submit-reassignment',
      { reassignmentCommands: unassignBody([c.contractId]).reassignmentCommands },
      { as: 'alice' },
    );
    expect(r.status).toBe(200);
    expect(r.json).toEqual({});
    expect(await ledgerEnd()).toBe(before + 1);
    expect(await contractRow(c.contractId)).toMatchObject({ status: 'in_flight', reassignment_counter: 1 });
    const bad = await ledger.call(
      'POST',
      '/v2/commands/async/submit-reassignment',
      { reassignmentCommands: unassignBody([c.contractId]).reassignmentCommands },
      { as: 'alice' },
    );
    expect(bad.status).toBe(400);
    expect(await ledgerEnd()).toBe(before + 1);
  });
});

describe('rejected at commit: a rejected completion at its own offset', () => {
  const completionsAfter = async (begin: number) =>
    (
      await ledger.call(
        'POST',
        '/v2/commands/completions?stream_idle_timeout_ms=150',
        { parties: [alice], beginExclusive: begin },
        { as: 'alice' },
      )
    ).json
      .filter((e: any) => e.completionResponse.Completion)
      .map((e: any) => e.completionResponse.Completion.value);

  it('a duplicate: submit-and-wait-for-reassignment answers 409 DUPLICATE_COMMAND, async/submit-reassignment {}; each has its completion', async () => {
    const [c1, c2] = [await newContract('iou-dup-1'), await newContract('iou-dup-2')];
    const commandId = cmdId();
    const first = await submit(unassignBody([c1.contractId], { commandId }));
    expect(first.status).toBe(200);
    const before = await ledgerEnd();
    const dup = await submit(unassignBody([c2.contractId], { commandId }));
    expect([dup.status, dup.json.code, dup.json.context.completion_offset]).toEqual([
      409,
      'DUPLICATE_COMMAND',
      String(first.json.reassignment.offset),
    ]);
    const async = await ledger.call(
      'POST',
      '/v2/commands/async/submit-reassignment',
      { reassignmentCommands: unassignBody([c2.contractId], { commandId }).reassignmentCommands },
      { as: 'alice' },
    );
    expect([async.status, async.json]).toEqual([200, {}]);
    // Two rejected completions, each at an offset of its own; no reassignment was added.
    expect(await ledgerEnd()).toBe(before + 2);
    const done = await completionsAfter(before);
    expect(done.map((c: any) => [c.commandId, c.status.code, c.updateId, c.actAs, c.userId])).toEqual([
      [commandId, 6, '', [alice], 'alice'],
      [commandId, 6, '', [alice], 'alice'],
    ]);
    expect(done[0].synchronizerTime.synchronizerId).toBe(A);
    expect(await contractRow(c2.contractId)).toMatchObject({ status: 'active', synchronizer_id: A });
    const updates = await ledger.runtime.db
      .selectFrom('ledger_updates')
      .select('ledger_offset')
      .where('ledger_offset', '>', before)
      .execute();
    expect(updates).toHaveLength(0);
  });
});

describe('rejections: code, status, ledger end unchanged', () => {
  it('participant-side failures are 400 INVALID_ARGUMENT with the reference messages', async () => {
    const c = await newContract('iou-reject');
    const unknown = contractIdFromSeed('never-created');
    await rejected(
      unassignBody([unknown]),
      400,
      'INVALID_ARGUMENT',
      invalidArg(`Cannot unassign contract \`${unknown}\`: unknown contract`),
    );
    // Active, but on A, not on the named source B.
    await rejected(
      unassignBody([c.contractId], { source: B, target: A }),
      400,
      'INVALID_ARGUMENT',
      invalidArg(`Cannot unassign contract \`${c.contractId}\`: unknown contract`),
    );
    await rejected(
      unassignBody([c.contractId], { target: A }),
      400,
      'INVALID_ARGUMENT',
      invalidArg(`Cannot unassign contracts \`${c.contractId}\`: source and target synchronizers are the same`),
    );
    const elsewhere = `elsewhere::1220${'ab'.repeat(32)}`;
    await rejected(
      unassignBody([c.contractId], { target: elsewhere }),
      400,
      'INVALID_ARGUMENT',
      invalidArg(`Unable to resolve ${elsewhere} to a connected physical synchronizer id`),
    );
    await rejected(
      unassignBody([c.contractId], { submitter: carol, eventFormat: byParty(carol) }),
      400,
      'INVALID_ARGUMENT',
      invalidArg(
        `Submission failed because: For contract \`${c.contractId}\`: submitter \`${carol}\` is not a stakeholder`,
      ),
      'carol',
    );
    const dave = partyId('dave');
    const shared = await newContract('iou-not-hosted', A, [dave]);
    expect(
      (
        await ledger.call('POST', '/v2/users', {
          user: { id: 'dave' },
          rights: [{ kind: { CanActAs: { value: { party: dave } } } }],
        })
      ).status,
    ).toBe(200);
    await rejected(
      unassignBody([shared.contractId], { submitter: dave, eventFormat: byParty(dave) }),
      400,
      'INVALID_ARGUMENT',
      invalidArg(
        `Submission failed because: For contract \`${shared.contractId}\`: ${dave} is not hosted on ${ledger.participantId}`,
      ),
      'dave',
    );
    const missingId = `00${'1220'}${'cd'.repeat(32)}`;
    await rejected(
      assignBody(missingId),
      400,
      'INVALID_ARGUMENT',
      invalidArg(`Cannot find reassignment data for reassignment \`${missingId}\`: unknown reassignment id`),
    );
    const body = await rejected(unassignBody([c.contractId], { target: A }), 400, 'INVALID_ARGUMENT');
    expect(body).toMatchObject({ errorCategory: 8, grpcCodeValue: 3, definiteAnswer: null, resources: [] });
    expect(body.context).toMatchObject({ category: '8' });
  });

  it('assign: wrong source/target is unknown; before exclusivity only the unassign submitter may assign', async () => {
    const c = await newContract('iou-exclusive');
    const id = (await submit(unassignBody([c.contractId]))).json.reassignment.events[0].JsUnassignedEvent.value
      .reassignmentId;
    const unknownMsg = invalidArg(`Cannot find reassignment data for reassignment \`${id}\`: unknown reassignment id`);
    await rejected(assignBody(id, { source: B, target: A }), 400, 'INVALID_ARGUMENT', unknownMsg);
    await rejected(assignBody(id, { source: A, target: A }), 400, 'INVALID_ARGUMENT', unknownMsg);
    await rejected(
      assignBody(id, { submitter: bob, eventFormat: byParty(bob) }),
      400,
      'INVALID_ARGUMENT',
      new RegExp(
        `^${escape(invalidArg(`Cannot assign \`${id}\`: only submitter can initiate before exclusivity timeout `))}\\d{4}-`,
      ),
      'bob',
    );
    await rejected(
      assignBody(id, { submitter: carol, eventFormat: byParty(carol) }),
      400,
      'INVALID_ARGUMENT',
      invalidArg(`Submission failed because: For reassignment \`${id}\`: submitter \`${carol}\` is not a stakeholder`),
      'carol',
    );
    expect((await submit(assignBody(id))).status).toBe(200);
  });

  it('batch shape', async () => {
    const [c1, c2] = [await newContract('iou-batch-1'), await newContract('iou-batch-2')];
    const none = unassignBody([]);
    await rejected(
      none,
      400,
      'INVALID_ARGUMENT',
      invalidArg('The batch of reassignment commands was invalid: no commands'),
    );
    const mixed = unassignBody([c1.contractId]);
    mixed.reassignmentCommands.commands.push(
      assignBody(`001220${'ef'.repeat(32)}`).reassignmentCommands.commands[0] as never,
    );
    await rejected(
      mixed,
      400,
      'INVALID_ARGUMENT',
      invalidArg('The batch of reassignment commands was invalid: mixed assign with other commands'),
    );
    const twoAssigns = assignBody(`001220${'ef'.repeat(32)}`);
    twoAssigns.reassignmentCommands.commands.push(twoAssigns.reassignmentCommands.commands[0]);
    await rejected(
      twoAssigns,
      400,
      'INVALID_ARGUMENT',
      invalidArg('The batch of reassignment commands was invalid: mixed assign with other commands'),
    );
    const differing = unassignBody([c1.contractId, c2.contractId]);
    differing.reassignmentCommands.commands[1].command.UnassignCommand.value.target = A;
    await rejected(
      differing,
      400,
      'INVALID_ARGUMENT',
      invalidArg('The batch of reassignment commands was invalid: differing synchronizers'),
    );
  });

  it('field validation: MISSING_FIELD / INVALID_FIELD', async () => {
    const c = await newContract('iou-fields');
    const missing = (f: string) => `The submitted command is missing a mandatory field: ${f}`;
    const invalid = (f: string, m: string | RegExp) =>
      typeof m === 'string' ? `The submitted command has a field with invalid value: Invalid field ${f}: ${m}` : m;
    const j1 = await rejected({ eventFormat: byParty(alice) }, 400, 'MISSING_FIELD', missing('reassignment_commands'));
    expect(j1.context).toMatchObject({ field_name: 'reassignment_commands' });
    const withRc = (patch: Record<string, unknown>) => {
      const b = unassignBody([c.contractId]);
      Object.assign(b.reassignmentCommands, patch);
      return b;
    };
    await rejected(withRc({ commandId: '' }), 400, 'MISSING_FIELD', missing('command_id'));
    await rejected(withRc({ commandId: 'bad\u0001id' }), 400, 'INVALID_FIELD', /Invalid field command_id: /);
    await rejected(withRc({ workflowId: 'x'.repeat(256) }), 400, 'INVALID_FIELD', /Invalid field workflow_id: /);
    await rejected(withRc({ commands: [{ command: { Empty: {} } }] }), 400, 'MISSING_FIELD', missing('command'));
    await rejected(withRc({ commands: [{}] }), 400, 'MISSING_FIELD', missing('command'));
    await rejected(
      withRc({ commands: [{ command: { UnassignCommand: { value: { contractId: c.contractId, target: B } } } }] }),
      400,
      'MISSING_FIELD',
      missing('source'),
    );
    await rejected(
      withRc({
        commands: [
          { command: { UnassignCommand: { value: { contractId: c.contractId, source: A, target: 'not-a-sync' } } } },
        ],
      }),
      400,
      'INVALID_FIELD',
      /Invalid field target: /,
    );
    await rejected(
      withRc({ commands: [{ command: { UnassignCommand: { value: { contractId: '', source: A, target: B } } } }] }),
      400,
      'MISSING_FIELD',
      missing('contract_id'),
    );
    await rejected(
      withRc({ commands: [{ command: { UnassignCommand: { value: { contractId: 'xyz', source: A, target: B } } } }] }),
      400,
      'INVALID_FIELD',
      /Invalid field contract_id: /,
    );
    await rejected(
      withRc({
        commands: [{ command: { AssignCommand: { value: { reassignmentId: '1220abcd', source: A, target: B } } } }],
      }),
      400,
      'INVALID_FIELD',
      invalid('reassignment_id', 'Invalid reassignment ID'),
    );
    // Submitter syntax (the caller may act as any party, so authorization passes and validation speaks).
    const anyActor = 'any-actor';
    expect(
      (
        await ledger.call('POST', '/v2/users', {
          user: { id: anyActor },
          rights: [{ kind: { CanActAsAnyParty: { value: {} } } }],
        })
      ).status,
    ).toBe(200);
    await rejected(withRc({ submitter: 'alice' }), 400, 'INVALID_FIELD', /Invalid field submitter: /, anyActor);
    await rejected(withRc({ submitter: '' }), 400, 'MISSING_FIELD', missing('submitter'), anyActor);
  });

  it('eventFormat validation; decode errors are 400 text/plain', async () => {
    const c = await newContract('iou-ef');
    await rejected(
      unassignBody([c.contractId], { eventFormat: {} }),
      400,
      'INVALID_ARGUMENT',
      invalidArg('filtersByParty and filtersForAnyParty cannot be empty simultaneously'),
    );
    const pkgId = {
      filtersByParty: {
        [alice]: { cumulative: [{ identifierFilter: { TemplateFilter: { value: { templateId: 'abc:Iou:Iou' } } } }] },
      },
    };
    await rejected(
      unassignBody([c.contractId], { eventFormat: pkgId }),
      400,
      'INVALID_FIELD',
      /Invalid field packageId: Received an identifier with package ID abc, but expected a package name\.$/,
    );
    const before = await ledgerEnd();
    const badId = {
      filtersByParty: {
        [alice]: { cumulative: [{ identifierFilter: { TemplateFilter: { value: { templateId: 'not-an-id' } } } }] },
      },
    };
    for (const body of [
      unassignBody([c.contractId], { eventFormat: badId }),
      { reassignmentCommands: { commands: 'nope' } },
      { reassignmentCommands: { submitter: 7 } },
    ]) {
      const r = await submit(body);
      expect(r.status).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(r.text).toMatch(/^Invalid value for: body \(/);
    }
    const r = await submit(unassignBody([c.contractId], { eventFormat: badId }));
    expect(r.text).toContain(
      `at 'eventFormat.filtersByParty.${alice}.cumulative[0].identifierFilter.TemplateFilter.value.templateId'`,
    );
    expect(await ledgerEnd()).toBe(before);
  });

  it('authorization (CommandServiceAuthorization): ActAs(submitter), MatchUserId, ReadAs for the format parties', async () => {
    const c = await newContract('iou-auth');
    const denied = (j: Record<string, unknown>) =>
      expect(j).toMatchObject({ code: 'NA', errorCategory: -1, grpcCodeValue: 7 });
    denied(await rejected(unassignBody([c.contractId]), 403, 'NA', undefined, 'bob'));
    denied(await rejected(unassignBody([c.contractId]), 403, 'NA', undefined, 'alice-reader'));
    denied(
      await rejected(
        unassignBody([c.contractId], { eventFormat: byParty(alice, carol) }),
        403,
        'NA',
        undefined,
        'alice',
      ),
    );
    const anyParty = { filtersForAnyParty: { cumulative: [] } };
    denied(await rejected(unassignBody([c.contractId], { eventFormat: anyParty }), 403, 'NA', undefined, 'alice'));
    const otherUser = unassignBody([c.contractId]);
    Object.assign(otherUser.reassignmentCommands, { userId: 'bob' });
    denied(await rejected(otherUser, 403, 'NA', undefined, 'alice'));
    // The admin has no party rights.
    denied(await rejected(unassignBody([c.contractId]), 403, 'NA', undefined, ledger.config.adminUser));
    const before = await ledgerEnd();
    const anon = await ledger.call('POST', SUBMIT, unassignBody([c.contractId]), { as: null });
    expect(anon.status).toBe(401);
    // The explicit, matching user id is fine.
    const own = unassignBody([c.contractId]);
    Object.assign(own.reassignmentCommands, { userId: 'alice' });
    expect((await submit(own)).status).toBe(200);
    expect(await ledgerEnd()).toBe(before + 1);
  });

  it('deduplication: the same change id after success → 409 DUPLICATE_COMMAND; another submitter or user is a new change', async () => {
    const [c1, c2] = [await newContract('iou-dedup-1'), await newContract('iou-dedup-2', A, [])];
    const first = await submit(unassignBody([c1.contractId], { commandId: 'dedup-1' }));
    expect(first.status).toBe(200);
    // Found at commit: the answer is the error, and a rejected completion takes an offset (below).
    const before = await ledgerEnd();
    const dup = (await submit(unassignBody([c2.contractId], { commandId: 'dedup-1' }))).json;
    expect(dup).toMatchObject({
      code: 'DUPLICATE_COMMAND',
      errorCategory: 10,
      grpcCodeValue: 6,
      cause: 'A command with the given command id has already been successfully processed',
    });
    expect(await ledgerEnd()).toBe(before + 1);
    expect(dup.context).toMatchObject({
      completion_offset: String(first.json.reassignment.offset),
      definite_answer: 'false',
    });
    // A failed submission does not consume its change id.
    await rejected(unassignBody([contractIdFromSeed('nope')], { commandId: 'dedup-2' }), 400, 'INVALID_ARGUMENT');
    expect((await submit(unassignBody([c2.contractId], { commandId: 'dedup-2' }))).status).toBe(200);
  });
});
