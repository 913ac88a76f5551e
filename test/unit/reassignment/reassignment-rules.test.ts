import { describe, expect, it } from 'vitest';
import { contractIdFromSeed, reassignmentId } from '@ledgerline/canton';
import {
  checkReassignmentDeduplication,
  decideAssign,
  decideUnassign,
  isoMicros,
  LedgerError,
  parseIsoMicros,
  requireReassignmentSynchronizers,
  validateReassignmentCommands,
  type ReassignableContract,
  type RawReassignmentCommands,
  type ReassignmentSubmission,
  type UnassignmentRecord,
  compileEventFormat,
  NO_INTERFACES,
  storedTemplateKey,
  validateEventFormat,
} from '@ledgerline/domain';
import { createdEventFor, partyId } from '../../support/contracts';

const A = `alpha::1220${'a1'.repeat(32)}`;
const B = `beta::1220${'b2'.repeat(32)}`;
const alice = partyId('alice');
const bob = partyId('bob');
const carol = partyId('carol');
const NOW = parseIsoMicros('2025-06-01T12:00:00.000000Z');

function caught(f: () => unknown): LedgerError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(LedgerError);
    return e as LedgerError;
  }
  throw new Error('expected a LedgerError');
}

const rc = (
  commands: RawReassignmentCommands['commands'],
  patch: Partial<RawReassignmentCommands> = {},
): RawReassignmentCommands => ({
  commandId: 'cmd',
  submitter: alice,
  commands,
  ...patch,
});
const un = (contractId: string, source = A, target = B) => ({
  command: { UnassignCommand: { value: { contractId, source, target } } },
});
const as = (id: string, source = A, target = B) => ({
  command: { AssignCommand: { value: { reassignmentId: id, source, target } } },
});
const validate = (r: RawReassignmentCommands | null) => validateReassignmentCommands(r, 'alice', () => 'generated');
const cid = (s: string) => contractIdFromSeed(s);
const RID = `001220${'ab'.repeat(32)}`;

describe('validateReassignmentCommands (Canton SubmitAndWaitRequestValidator)', () => {
  it('accepts unassigns sharing source and target, and exactly one assign; generates an empty submission id', () => {
    expect(validate(rc([un(cid('1')), un(cid('2'))]))).toEqual({
      userId: 'alice',
      submitter: alice,
      commandId: 'cmd',
      workflowId: '',
      submissionId: 'generated',
      batch: { kind: 'unassign', source: A, target: B, contractIds: [cid('1'), cid('2')] },
    });
    expect(validate(rc([as(RID)], { submissionId: 'sub-1', workflowId: 'wf' }))).toMatchObject({
      submissionId: 'sub-1',
      workflowId: 'wf',
      batch: { kind: 'assign', reassignmentId: RID, source: A, target: B },
    });
  });

  it.each([
    [[], 'no commands'],
    [[un(cid('1')), as(RID)], 'mixed assign with other commands'],
    [[as(RID), as(RID)], 'mixed assign with other commands'],
    [[un(cid('1')), un(cid('2'), A, A)], 'differing synchronizers'],
    [[un(cid('1')), un(cid('2'), B, B)], 'differing synchronizers'],
  ])('batch shape %#', (commands, reason) => {
    const e = caught(() => validate(rc(commands as never)));
    expect([e.code, e.category.httpStatus, e.causeText]).toEqual([
      'INVALID_ARGUMENT',
      400,
      `The submitted request has invalid arguments: The batch of reassignment commands was invalid: ${reason}`,
    ]);
  });

  it.each([
    [null, 'MISSING_FIELD', 'reassignment_commands'],
    [rc([un(cid('1'))], { submitter: '' }), 'MISSING_FIELD', 'submitter'],
    [rc([un(cid('1'))], { submitter: 'alice' }), 'INVALID_FIELD', 'submitter'],
    [rc([un(cid('1'))], { commandId: undefined }), 'MISSING_FIELD', 'command_id'],
    [rc([un(cid('1'))], { commandId: 'a\nb' }), 'INVALID_FIELD', 'command_id'],
    [rc([un(cid('1'))], { submissionId: 'ä' }), 'INVALID_FIELD', 'submission_id'],
    [rc([un(cid('1'))], { workflowId: 'x'.repeat(256) }), 'INVALID_FIELD', 'workflow_id'],
    [rc([{ command: { Empty: {} } }]), 'MISSING_FIELD', 'command'],
    [rc([{}]), 'MISSING_FIELD', 'command'],
    [rc([un(cid('1'), '')]), 'MISSING_FIELD', 'source'],
    [rc([un(cid('1'), A, 'beta')]), 'INVALID_FIELD', 'target'],
    [rc([un('')]), 'MISSING_FIELD', 'contract_id'],
    [rc([un('00zz')]), 'INVALID_FIELD', 'contract_id'],
    [rc([as('')]), 'INVALID_FIELD', 'reassignment_id'],
    [rc([as(`01${RID.slice(2)}`)]), 'INVALID_FIELD', 'reassignment_id'],
    [rc([as(RID, A, '')]), 'MISSING_FIELD', 'target'],
  ])('field %# → %s %s', (input, code, field) => {
    const e = caught(() => validate(input as RawReassignmentCommands | null));
    expect(e.code).toBe(code);
    expect(e.category.id).toBe(8);
    expect(e.context.field_name).toBe(field);
  });

  it('an empty user id (after defaulting) is an invalid field', () => {
    expect(caught(() => validateReassignmentCommands(rc([un(cid('1'))]), '', () => 'x')).context.field_name).toBe(
      'user_id',
    );
  });

  it('source and target must be connected synchronizers', () => {
    const other = `gamma::1220${'c3'.repeat(32)}`;
    expect(() =>
      requireReassignmentSynchronizers({ kind: 'unassign', source: A, target: B, contractIds: [] }, [A, B]),
    ).not.toThrow();
    expect(
      caught(() =>
        requireReassignmentSynchronizers({ kind: 'assign', source: A, target: other, reassignmentId: RID }, [A, B]),
      ).causeText,
    ).toBe(
      `The submitted request has invalid arguments: Unable to resolve ${other} to a connected physical synchronizer id`,
    );
  });
});

function contract(seed: string, o: Partial<ReassignableContract> = {}, observers = [bob]): ReassignableContract {
  const created = createdEventFor({ seed, signatories: [alice], observers, synchronizerId: A });
  return {
    contractId: created.contractId,
    templateId: created.templateId,
    packageName: created.packageName,
    stakeholders: [alice, ...observers],
    status: 'active',
    synchronizerId: A,
    reassignmentCounter: 0,
    createdEvent: created,
    ...o,
  };
}
const submission = (batch: ReassignmentSubmission['batch'], submitter = alice): ReassignmentSubmission => ({
  userId: 'u',
  submitter,
  commandId: 'cmd',
  workflowId: 'wf',
  submissionId: 'sub',
  batch,
});
const ctx = (hosted: string[] = [alice, bob], now = NOW) => ({
  isHosted: (p: string) => hosted.includes(p),
  participantId: 'participant1::1220ab',
  nowMicros: now,
  exclusivityTimeoutMicros: 60_000_000n,
});
const mapOf = (...cs: ReassignableContract[]) => new Map(cs.map((c) => [c.contractId, c]));
const unassignOf = (cs: ReassignableContract[], submitter = alice, c = ctx()) =>
  decideUnassign(
    submission(
      { kind: 'unassign', source: A, target: B, contractIds: cs.map((x) => x.contractId) },
      submitter,
    ) as never,
    mapOf(...cs),
    c,
  );

describe('decideUnassign', () => {
  it('bumps each counter, shares one deterministic Canton-form id, sets exclusivity = now + timeout, one update on the source', () => {
    const c1 = contract('u1');
    const c2 = contract('u2', { reassignmentCounter: 4 }, []);
    const e = unassignOf([c1, c2]);
    const id = reassignmentId({
      source: A,
      target: B,
      unassignmentTimestampMicros: NOW,
      contracts: [
        { contractId: c1.contractId, reassignmentCounter: 1 },
        { contractId: c2.contractId, reassignmentCounter: 5 },
      ],
    });
    expect(id).toMatch(/^001220[0-9a-f]{64}$/);
    expect(e).toMatchObject({
      type: 'ReassignmentCommitted',
      stream: `reassignment:${id}`,
      update: { kind: 'Reassignment', synchronizerId: A, parties: [alice, bob].sort(), commandId: 'cmd' },
      data: { commandId: 'cmd', workflowId: 'wf', submission: { userId: 'u', submitter: alice, submissionId: 'sub' } },
    });
    expect(e.data.events).toEqual([
      {
        Unassigned: {
          reassignmentId: id,
          contractId: c1.contractId,
          templateId: c1.templateId,
          packageName: 'model-tests',
          source: A,
          target: B,
          submitter: alice,
          reassignmentCounter: 1,
          assignmentExclusivity: isoMicros(NOW + 60_000_000n),
          stakeholders: [alice, bob],
          nodeId: 0,
        },
      },
      {
        Unassigned: {
          reassignmentId: id,
          contractId: c2.contractId,
          templateId: c2.templateId,
          packageName: 'model-tests',
          source: A,
          target: B,
          submitter: alice,
          reassignmentCounter: 5,
          assignmentExclusivity: isoMicros(NOW + 60_000_000n),
          stakeholders: [alice],
          nodeId: 1,
        },
      },
    ]);
    // Same inputs, same id; another time, another id.
    expect(unassignOf([c1, c2]).stream).toBe(e.stream);
    expect(unassignOf([c1, c2], alice, ctx(undefined, NOW + 1n)).stream).not.toBe(e.stream);
  });

  it.each([
    [
      'same synchronizers',
      () =>
        decideUnassign(
          submission({ kind: 'unassign', source: A, target: A, contractIds: [contract('s').contractId] }) as never,
          mapOf(contract('s')),
          ctx(),
        ),
      /^Cannot unassign contracts `00[0-9a-f]+`: source and target synchronizers are the same$/,
    ],
    [
      'unknown',
      () =>
        decideUnassign(
          submission({ kind: 'unassign', source: A, target: B, contractIds: [cid('x')] }) as never,
          new Map(),
          ctx(),
        ),
      /: unknown contract$/,
    ],
    ['active elsewhere', () => unassignOf([contract('e', { synchronizerId: B })]), /: unknown contract$/],
    [
      'archived',
      () => unassignOf([contract('a', { status: 'archived', synchronizerId: null })]),
      /because it's not active\. Current status Archived$/,
    ],
    [
      'in flight',
      () =>
        unassignOf([
          contract('f', { status: 'in_flight', synchronizerId: null, reassignmentCounter: 3, inFlightTarget: B }),
        ]),
      new RegExp(`Current status ReassignedAway\\(Target\\(${B}\\),3\\)$`),
    ],
    [
      'twice in one batch',
      () => unassignOf([contract('t'), contract('t')]),
      new RegExp(`Current status ReassignedAway\\(Target\\(${B}\\),1\\)$`),
    ],
    [
      'not a stakeholder',
      () => unassignOf([contract('n')], carol),
      new RegExp(
        `^Submission failed because: For contract \`00[0-9a-f]+\`: submitter \`${carol}\` is not a stakeholder$`,
      ),
    ],
    [
      'not hosted',
      () => unassignOf([contract('h')], bob, ctx([alice])),
      new RegExp(
        `^Submission failed because: For contract \`00[0-9a-f]+\`: ${bob} is not hosted on participant1::1220ab$`,
      ),
    ],
  ])('%s → 400 INVALID_ARGUMENT', (_name, f, cause) => {
    const e = caught(f as () => unknown);
    expect([e.code, e.category.httpStatus]).toEqual(['INVALID_ARGUMENT', 400]);
    expect(e.causeText.replace('The submitted request has invalid arguments: ', '')).toMatch(cause);
  });
});

describe('decideAssign', () => {
  const c = contract('as', { status: 'in_flight', synchronizerId: null, reassignmentCounter: 1 });
  const record = (o: Partial<UnassignmentRecord> = {}): UnassignmentRecord => ({
    reassignmentId: RID,
    source: A,
    target: B,
    submitter: alice,
    assignmentExclusivity: isoMicros(NOW + 10n),
    contracts: [{ contractId: c.contractId, reassignmentCounter: 1 }],
    completed: false,
    ...o,
  });
  const assign = (
    r: UnassignmentRecord | null,
    submitter = alice,
    o: { source?: string; target?: string; now?: bigint; contracts?: ReassignableContract[] } = {},
  ) =>
    decideAssign(
      submission(
        { kind: 'assign', source: o.source ?? A, target: o.target ?? B, reassignmentId: RID },
        submitter,
      ) as never,
      r,
      mapOf(...(o.contracts ?? [c])),
      ctx([alice, bob], o.now ?? NOW),
    );

  it('re-renders the created event with the same counter, on the target', () => {
    const e = assign(record());
    expect(e.update).toEqual({
      kind: 'Reassignment',
      synchronizerId: B,
      parties: [alice, bob].sort(),
      commandId: 'cmd',
    });
    expect(e.data.events).toEqual([
      {
        Assigned: {
          reassignmentId: RID,
          source: A,
          target: B,
          submitter: alice,
          reassignmentCounter: 1,
          createdEvent: { ...c.createdEvent, nodeId: 0 },
          stakeholders: [alice, bob],
        },
      },
    ]);
  });

  it('exclusivity: before the deadline only the unassign submitter; at or after it any stakeholder; no deadline → anyone', () => {
    const e = caught(() => assign(record(), bob));
    expect(e.causeText).toBe(
      `The submitted request has invalid arguments: Cannot assign \`${RID}\`: only submitter can initiate before exclusivity timeout ${isoMicros(NOW + 10n)}`,
    );
    expect(assign(record(), bob, { now: NOW + 10n }).data.events[0]).toMatchObject({ Assigned: { submitter: bob } });
    expect(assign(record({ assignmentExclusivity: null }), bob).data.events).toHaveLength(1);
  });

  it.each([
    ['unknown id', () => assign(null), /unknown reassignment id$/],
    ['other source', () => assign(record(), alice, { source: B, target: A }), /unknown reassignment id$/],
    ['other target', () => assign(record({ target: `gamma::1220${'c3'.repeat(32)}` })), /unknown reassignment id$/],
    ['completed', () => assign(record({ completed: true })), /assignment has been completed$/],
    [
      'contract moved on',
      () => assign(record(), alice, { contracts: [{ ...c, status: 'active', synchronizerId: B }] }),
      /assignment has been completed$/,
    ],
    [
      'not a stakeholder',
      () => assign(record({ assignmentExclusivity: null }), carol),
      /submitter `carol::1220[0-9a-f]+` is not a stakeholder$/,
    ],
  ])('%s → 400', (_n, f, cause) => {
    const e = caught(f);
    expect(e.code).toBe('INVALID_ARGUMENT');
    expect(e.causeText).toMatch(cause);
  });
});

describe("event format of a reassignment result (the read side's rules, ACS_DELTA)", () => {
  const ev = { stakeholders: [alice, bob], packageName: 'model-tests', templateId: 'pkg:Iou:Iou' };
  const select = (format: Parameters<typeof compileEventFormat>[0]) => {
    validateEventFormat(format);
    const f = compileEventFormat(format, NO_INTERFACES);
    const m = f.match(ev.stakeholders, storedTemplateKey(ev.templateId, ev.packageName));
    return m ? { witnessParties: f.witnesses(ev.stakeholders), includeCreatedEventBlob: m.blob } : null;
  };
  it('witness parties = stakeholders ∩ requested; party wildcard → all; template filters by package name; blobs on request', () => {
    expect(select({ filtersByParty: { [alice]: {}, [carol]: {} } })).toEqual({
      witnessParties: [alice],
      includeCreatedEventBlob: false,
    });
    expect(select({ filtersByParty: { [carol]: {} } })).toBeNull();
    expect(
      select({
        filtersForAnyParty: {
          cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: true } } } }],
        },
      }),
    ).toEqual({
      witnessParties: [alice, bob],
      includeCreatedEventBlob: true,
    });
    const tf = (t: string, blob = false) => ({
      filtersByParty: {
        [bob]: {
          cumulative: [
            { identifierFilter: { TemplateFilter: { value: { templateId: t, includeCreatedEventBlob: blob } } } },
          ],
        },
      },
    });
    expect(select(tf('#model-tests:Iou:Iou', true))).toEqual({ witnessParties: [bob], includeCreatedEventBlob: true });
    expect(select(tf('#model-tests:Iou:Other'))).toBeNull();
    expect(select(tf('#other:Iou:Iou'))).toBeNull();
  });

  it('validation: not empty, party keys are party ids, package-name references only', () => {
    expect(caught(() => validateEventFormat({})).causeText).toMatch(
      /filtersByParty and filtersForAnyParty cannot be empty simultaneously$/,
    );
    expect(caught(() => validateEventFormat({ filtersByParty: { 'alice!?': {} } })).code).toMatch(
      /INVALID_(FIELD|ARGUMENT)/,
    );
    const e = caught(() =>
      validateEventFormat({
        filtersByParty: {
          [alice]: { cumulative: [{ identifierFilter: { TemplateFilter: { value: { templateId: 'abc:M:E' } } } }] },
        },
      }),
    );
    expect(e.code).toBe('INVALID_FIELD');
  });
});

describe('deduplication', () => {
  const prev = { submissionId: 's', completionOffset: 7, recordTime: isoMicros(NOW) };
  it('rejects within the period, with the completion offset; accepts after it or without a previous success', () => {
    const e = caught(() => checkReassignmentDeduplication(prev, NOW + 999n, 1000n));
    expect([e.code, e.category.httpStatus, e.context.completion_offset, e.definiteAnswer]).toEqual([
      'DUPLICATE_COMMAND',
      409,
      '7',
      false,
    ]);
    expect(() => checkReassignmentDeduplication(prev, NOW + 1001n, 1000n)).not.toThrow();
    expect(() => checkReassignmentDeduplication(null, NOW, 1000n)).not.toThrow();
  });
});
