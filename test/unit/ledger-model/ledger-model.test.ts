import { describe, expect, it } from 'vitest';
import { Metadata_InputContract, type DamlTransaction } from '@canton-network/core-ledger-proto';
import {
  buildTransactionEffects,
  checkAuthorization,
  checkConsistency,
  checkWellFormed,
  decideTransaction,
  prerenderTransaction,
  transactionShape,
  type DecideTransactionInput,
  type StoredContractState,
  type WellFormedTransaction,
} from '@ledgerline/domain';
import {
  createNode,
  exerciseNode,
  externalParty,
  fetchNode,
  freshContractId,
  PACKAGE_NAME,
  preparedTransaction,
  rollbackNode,
  TEMPLATE,
} from '../../../testkit/external-signing';

const SYNC = `global::1220${'ab'.repeat(32)}`;
const OTHER_SYNC = `secondary::1220${'cd'.repeat(32)}`;
const alice = externalParty('alice', Buffer.alloc(32, 1)).party;
const bob = externalParty('bob', Buffer.alloc(32, 2)).party;
const carol = externalParty('carol', Buffer.alloc(32, 3)).party;
const TID = `${TEMPLATE.packageId}:${TEMPLATE.moduleName}:${TEMPLATE.entityName}`;

function tx(nodes: ReturnType<typeof createNode>[], roots?: string[]): DamlTransaction {
  return preparedTransaction({ nodes, roots, actAs: [alice], synchronizerId: SYNC, commandId: 'c' }).transaction!;
}

function stored(contractId: string, o: Partial<StoredContractState> = {}): StoredContractState {
  return {
    contractId,
    templateId: TID,
    packageName: PACKAGE_NAME,
    signatories: [alice],
    stakeholders: [alice, bob],
    status: 'active',
    synchronizerId: SYNC,
    ...o,
  };
}

function ref(contractId: string, o: { signatories?: string[]; stakeholders?: string[] } = {}) {
  return { contractId, signatories: o.signatories ?? [alice], stakeholders: o.stakeholders ?? [alice, bob] };
}

/** Runs `fn` and returns the LedgerError's code and cause. */
function rejection(fn: () => unknown): { code: string; cause: string; status: number } {
  try {
    fn();
  } catch (e: any) {
    return { code: e.code, cause: e.causeText, status: e.httpStatus };
  }
  throw new Error('expected a rejection');
}

const FAILED = 'FAILED_TO_EXECUTE_TRANSACTION';
const PREFIX = 'The participant failed to execute the transaction: ';

describe('well-formedness', () => {
  const c = () => ({ contractId: freshContractId(), signatories: [alice], stakeholders: [alice] });

  it('accepts a single root and lists nodes in pre-order with subtree ends', () => {
    const cid = freshContractId();
    const wf = checkWellFormed(
      tx([
        exerciseNode('0', { ...ref(cid), actingParties: [alice], children: ['1', '3'] }),
        rollbackNode('1', ['2']),
        createNode('2', c()),
        fetchNode('3', { ...ref(cid), actingParties: [alice] }),
      ]),
    );
    expect(wf.nodes.map((n) => [n.nodeId, n.position, n.lastDescendant, n.parent])).toEqual([
      ['0', 0, 3, -1],
      ['1', 1, 2, 0],
      ['2', 2, 2, 1],
      ['3', 3, 3, 0],
    ]);
    expect(wf.inputContractIds).toEqual([cid]);
    expect(wf.createdContractIds).toHaveLength(1);
  });

  it.each([
    [
      'multiple roots',
      () => tx([createNode('0', c()), createNode('1', c())], ['0', '1']),
      'Transaction with multiple root nodes are not supported',
    ],
    ['no root', () => tx([createNode('0', c())], []), 'The transaction has no root node'],
    [
      'duplicate node id',
      () =>
        tx([
          exerciseNode('0', { ...ref(freshContractId()), actingParties: [alice], children: ['1'] }),
          createNode('1', c()),
          createNode('1', c()),
        ]),
      'Node id 1 is used by more than one node',
    ],
    [
      'missing child',
      () => tx([exerciseNode('0', { ...ref(freshContractId()), actingParties: [alice], children: ['7'] })]),
      'Node 7 is referenced but not present in the transaction',
    ],
    [
      'child twice',
      () =>
        tx([
          exerciseNode('0', { ...ref(freshContractId()), actingParties: [alice], children: ['1', '1'] }),
          createNode('1', c()),
        ]),
      'Node 1 appears more than once in the transaction tree',
    ],
    [
      'unreachable node',
      () => tx([createNode('0', c()), createNode('1', c())], ['0']),
      'Node 1 is not reachable from the root node',
    ],
    [
      'malformed created id',
      () => tx([createNode('0', { ...c(), contractId: '01abc' })]),
      "Node 0 creates a contract with a malformed contract id '01abc'",
    ],
    [
      'malformed used id',
      () => tx([fetchNode('0', { ...ref('zz'), actingParties: [alice] })]),
      "Node 0 uses a malformed contract id 'zz'",
    ],
  ])('rejects %s', (_name, build, message) => {
    expect(rejection(() => checkWellFormed(build()))).toEqual({ code: FAILED, cause: PREFIX + message, status: 400 });
  });

  it('rejects a contract created twice', () => {
    const x = c();
    const r = rejection(() =>
      checkWellFormed(
        tx([
          exerciseNode('0', { ...ref(freshContractId()), actingParties: [alice], children: ['1', '2'] }),
          createNode('1', x),
          createNode('2', x),
        ]),
      ),
    );
    expect(r.cause).toBe(`${PREFIX}Contract ${x.contractId} is created more than once`);
  });

  it('rejects a node without a complete template id', () => {
    const r = rejection(() =>
      checkWellFormed(
        tx([createNode('0', { ...c(), templateId: { packageId: '', moduleName: 'M', entityName: 'E' } })]),
      ),
    );
    expect(r.cause).toBe(`${PREFIX}Node 0 has no complete template id`);
  });
});

describe('authorization', () => {
  const wf = (nodes: ReturnType<typeof createNode>[]) => checkWellFormed(tx(nodes));

  it('a create needs its signatories among the actAs parties', () => {
    const ok = wf([
      createNode('0', { contractId: freshContractId(), signatories: [alice], stakeholders: [alice, bob] }),
    ]);
    expect(() => checkAuthorization(ok, [alice])).not.toThrow();
    const r = rejection(() =>
      checkAuthorization(
        wf([createNode('0', { contractId: freshContractId(), signatories: [alice, bob], stakeholders: [alice, bob] })]),
        [alice],
      ),
    );
    expect(r.code).toBe(FAILED);
    expect(r.cause).toContain(
      `requires authorizers ${[alice, bob].sort().join(', ')}, but only ${alice} were given (missing ${bob})`,
    );
  });

  it('a create needs signatories ⊆ stakeholders, and at least one signatory', () => {
    expect(
      rejection(() =>
        checkAuthorization(
          wf([createNode('0', { contractId: freshContractId(), signatories: [alice], stakeholders: [bob] })]),
          [alice],
        ),
      ).cause,
    ).toContain(`signatories ${alice} are not stakeholders`);
    expect(
      rejection(() =>
        checkAuthorization(
          wf([createNode('0', { contractId: freshContractId(), signatories: [], stakeholders: [bob] })]),
          [alice],
        ),
      ).cause,
    ).toContain('has no signatories');
  });

  it('an exercise needs its acting parties among the authorizers', () => {
    const cid = freshContractId();
    expect(() =>
      checkAuthorization(wf([exerciseNode('0', { ...ref(cid), actingParties: [alice] })]), [alice]),
    ).not.toThrow();
    const r = rejection(() =>
      checkAuthorization(wf([exerciseNode('0', { ...ref(cid), actingParties: [bob] })]), [alice]),
    );
    expect(r.cause).toContain(`of choice Archive requires authorizers ${bob}, but only ${alice} were given`);
    expect(
      rejection(() => checkAuthorization(wf([exerciseNode('0', { ...ref(cid), actingParties: [] })]), [alice])).cause,
    ).toContain('has no acting parties');
  });

  it("an exercise's children are authorized by the contract's signatories ∪ acting parties", () => {
    // alice exercises a contract signed by bob: a child create signed by bob and alice is authorized, one by carol is not.
    const cid = freshContractId();
    const parent = {
      ...ref(cid, { signatories: [bob], stakeholders: [alice, bob] }),
      actingParties: [alice],
      children: ['1'],
    };
    expect(() =>
      checkAuthorization(
        wf([
          exerciseNode('0', parent),
          createNode('1', { contractId: freshContractId(), signatories: [alice, bob], stakeholders: [alice, bob] }),
        ]),
        [alice],
      ),
    ).not.toThrow();
    const r = rejection(() =>
      checkAuthorization(
        wf([
          exerciseNode('0', parent),
          createNode('1', { contractId: freshContractId(), signatories: [carol], stakeholders: [carol] }),
        ]),
        [alice],
      ),
    );
    expect(r.cause).toContain(`(missing ${carol})`);
    // The root's authorizers do not leak past an exercise: a nested exercise by carol is refused even if carol submits.
    const nested = rejection(() =>
      checkAuthorization(
        wf([
          exerciseNode('0', { ...parent, children: ['1'] }),
          exerciseNode('1', { ...ref(freshContractId()), actingParties: [carol], consuming: false }),
        ]),
        [alice, carol],
      ),
    );
    expect(nested.cause).toContain(
      `requires authorizers ${carol}, but only ${[alice, bob].sort().join(', ')} were given`,
    );
  });

  it('a fetch needs its acting parties among the authorizers', () => {
    expect(() =>
      checkAuthorization(wf([fetchNode('0', { ...ref(freshContractId()), actingParties: [alice] })]), [alice]),
    ).not.toThrow();
    expect(
      rejection(() =>
        checkAuthorization(wf([fetchNode('0', { ...ref(freshContractId()), actingParties: [bob] })]), [alice]),
      ).cause,
    ).toContain(`Fetch node 0 (${TID}) requires authorizers ${bob}`);
  });

  it('nodes under a rollback are still checked, with the rollback´s authorizers', () => {
    const cid = freshContractId();
    const nodes = (signer: string) => [
      exerciseNode('0', { ...ref(cid), actingParties: [alice], consuming: false, children: ['1'] }),
      rollbackNode('1', ['2']),
      createNode('2', { contractId: freshContractId(), signatories: [signer], stakeholders: [signer] }),
    ];
    expect(() => checkAuthorization(wf(nodes(alice)), [alice])).not.toThrow();
    expect(rejection(() => checkAuthorization(wf(nodes(carol)), [alice])).code).toBe(FAILED);
  });
});

describe('consistency', () => {
  const run = (nodes: ReturnType<typeof createNode>[], contracts: StoredContractState[] = []) =>
    checkConsistency({
      wf: checkWellFormed(tx(nodes)),
      synchronizerId: SYNC,
      contracts: new Map(contracts.map((c) => [c.contractId, c])),
    });

  it.each([
    ['archived', { status: 'archived' as const, synchronizerId: null }],
    ['in flight (being reassigned)', { status: 'in_flight' as const, synchronizerId: null }],
    ['on another synchronizer', { synchronizerId: OTHER_SYNC }],
  ])('an input contract that is %s is inactive', (_n, state) => {
    const cid = freshContractId();
    const r = rejection(() => run([exerciseNode('0', { ...ref(cid), actingParties: [alice] })], [stored(cid, state)]));
    expect(r).toEqual({
      code: 'LOCAL_VERDICT_INACTIVE_CONTRACTS',
      cause: `Rejected transaction is referring to inactive contracts ${cid}`,
      status: 404,
    });
  });

  it('an unknown input contract is inactive; all inactive inputs are reported', () => {
    const a = freshContractId();
    const b = freshContractId();
    const r = rejection(() =>
      run([
        exerciseNode('0', { ...ref(a), actingParties: [alice], consuming: false, children: ['1'] }),
        fetchNode('1', { ...ref(b), actingParties: [alice] }),
      ]),
    );
    expect(r.cause).toBe(`Rejected transaction is referring to inactive contracts ${a}, ${b}`);
  });

  it('a created contract id the ledger already knows is refused', () => {
    const cid = freshContractId();
    const r = rejection(() =>
      run(
        [createNode('0', { contractId: cid, signatories: [alice], stakeholders: [alice] })],
        [stored(cid, { status: 'archived' })],
      ),
    );
    expect(r.code).toBe('LOCAL_VERDICT_CREATES_EXISTING_CONTRACTS');
    expect(r.status).toBe(409);
  });

  it('consuming a contract twice, or using it after it was consumed, is CONTRACT_NOT_ACTIVE', () => {
    const cid = freshContractId();
    const owner = ref(cid);
    const parentCid = freshContractId();
    const parent = (children: string[]) =>
      exerciseNode('0', { ...ref(parentCid), actingParties: [alice], consuming: false, children });
    const twice = rejection(() =>
      run(
        [
          parent(['1', '2']),
          exerciseNode('1', { ...owner, actingParties: [alice] }),
          exerciseNode('2', { ...owner, actingParties: [alice] }),
        ],
        [stored(parentCid), stored(cid)],
      ),
    );
    expect(twice).toEqual({
      code: 'CONTRACT_NOT_ACTIVE',
      cause: `Interpretation error: Error: Update failed due to fetch of an inactive contract ${cid} (${TID}).`,
      status: 404,
    });
    const fetchAfter = rejection(() =>
      run(
        [
          parent(['1', '2']),
          exerciseNode('1', { ...owner, actingParties: [alice] }),
          fetchNode('2', { ...owner, actingParties: [alice] }),
        ],
        [stored(parentCid), stored(cid)],
      ),
    );
    expect(fetchAfter.code).toBe('CONTRACT_NOT_ACTIVE');
  });

  it.each([
    ['template id', { templateId: `${'00'.repeat(32)}:Main:Other` }, 'template id'],
    ['package name', { packageName: 'other-package' }, 'package name'],
    ['signatories', { signatories: [alice, bob] }, 'signatories'],
    ['stakeholders', { stakeholders: [alice] }, 'stakeholders'],
  ])('a node whose %s differs from the stored contract is refused', (_n, storedDiff, what) => {
    const cid = freshContractId();
    const r = rejection(() =>
      run([exerciseNode('0', { ...ref(cid), actingParties: [alice] })], [stored(cid, storedDiff)]),
    );
    expect(r.code).toBe(FAILED);
    expect(r.cause).toContain(`Node 0 states ${what} `);
  });

  it('a consuming exercise archives its input contract; a non-consuming one does not', () => {
    const cid = freshContractId();
    expect(run([exerciseNode('0', { ...ref(cid), actingParties: [alice] })], [stored(cid)]).archivedInputs).toEqual([
      cid,
    ]);
    expect(
      run([exerciseNode('0', { ...ref(cid), actingParties: [alice], consuming: false })], [stored(cid)]).archivedInputs,
    ).toEqual([]);
  });

  it('a contract created and consumed in the same transaction is transient', () => {
    const parent = freshContractId();
    const cid = freshContractId();
    const res = run(
      [
        exerciseNode('0', { ...ref(parent), actingParties: [alice], consuming: false, children: ['1', '2'] }),
        createNode('1', { contractId: cid, signatories: [alice], stakeholders: [alice] }),
        exerciseNode('2', { contractId: cid, signatories: [alice], stakeholders: [alice], actingParties: [alice] }),
      ],
      [stored(parent)],
    );
    expect([...res.transient]).toEqual([cid]);
    expect(res.archivedInputs).toEqual([]);
  });

  it('a rollback discards its effects: consumptions are undone, creations vanish', () => {
    const parent = freshContractId();
    const cid = freshContractId();
    const inner = freshContractId();
    const res = run(
      [
        exerciseNode('0', { ...ref(parent), actingParties: [alice], consuming: false, children: ['1', '4'] }),
        rollbackNode('1', ['2', '3']),
        exerciseNode('2', { ...ref(cid), actingParties: [alice] }),
        createNode('3', { contractId: inner, signatories: [alice], stakeholders: [alice] }),
        exerciseNode('4', { ...ref(cid), actingParties: [alice] }),
      ],
      [stored(parent), stored(cid)],
    );
    expect(res.archivedInputs).toEqual([cid]);
    expect(res.effective.map((n) => n.nodeId)).toEqual(['0', '4']);
    // Using a contract created under a rollback after the rollback ended is using an inactive contract.
    const r = rejection(() =>
      run(
        [
          exerciseNode('0', { ...ref(parent), actingParties: [alice], consuming: false, children: ['1', '3'] }),
          rollbackNode('1', ['2']),
          createNode('2', { contractId: inner, signatories: [alice], stakeholders: [alice] }),
          fetchNode('3', { contractId: inner, signatories: [alice], stakeholders: [alice], actingParties: [alice] }),
        ],
        [stored(parent)],
      ),
    );
    expect(r.code).toBe('CONTRACT_NOT_ACTIVE');
  });
});

describe('transaction effects', () => {
  it('renders created, exercised and archived events with node ids, observers, informees and the ACS delta', () => {
    const input = freshContractId();
    const created = freshContractId();
    const transient = freshContractId();
    const wf: WellFormedTransaction = checkWellFormed(
      tx([
        exerciseNode('0', {
          ...ref(input),
          actingParties: [alice],
          choiceId: 'Transfer',
          children: ['1', '2', '3'],
          choiceObservers: [carol],
        }),
        createNode('1', { contractId: created, signatories: [alice], stakeholders: [alice, bob] }),
        createNode('2', { contractId: transient, signatories: [alice], stakeholders: [alice] }),
        exerciseNode('3', {
          contractId: transient,
          signatories: [alice],
          stakeholders: [alice],
          actingParties: [alice],
        }),
      ]),
    );
    const consistency = checkConsistency({ wf, synchronizerId: SYNC, contracts: new Map([[input, stored(input)]]) });
    const micros = 1_767_225_600_000_000n;
    const { transaction, parties } = buildTransactionEffects({
      consistency,
      commandId: 'cmd',
      ledgerEffectiveTime: micros,
      externalTransactionHash: '1220ff',
      submission: { userId: 'u', actAs: [alice], submissionId: 's' },
    });
    expect(parties).toEqual([alice, bob, carol].sort());
    expect(transaction.effectiveAt).toBe('2026-01-01T00:00:00.000000Z');
    expect(transaction.externalTransactionHash).toBe('1220ff');
    const kinds = transaction.events.map(
      (e) => Object.keys(e)[0] + ':' + (Object.values(e)[0] as { nodeId: number }).nodeId,
    );
    expect(kinds).toEqual([
      'ExercisedEvent:0',
      'ArchivedEvent:0',
      'CreatedEvent:1',
      'CreatedEvent:2',
      'ExercisedEvent:3',
    ]);
    const [root, archived, c1, c2, ex3] = transaction.events as any[];
    expect(root.ExercisedEvent).toMatchObject({
      choice: 'Transfer',
      consuming: true,
      acsDelta: true,
      lastDescendantNodeId: 3,
      informees: [alice, bob, carol],
      stakeholders: [alice, bob],
    });
    expect(archived.ArchivedEvent).toMatchObject({ contractId: input, templateId: TID, stakeholders: [alice, bob] });
    expect(c1.CreatedEvent).toMatchObject({
      contractId: created,
      signatories: [alice],
      observers: [bob],
      acsDelta: true,
      createArgument: { owner: alice, note: 'hello' },
    });
    expect(c2.CreatedEvent.acsDelta).toBe(false);
    expect(ex3.ExercisedEvent.acsDelta).toBe(false);
    const blob = Metadata_InputContract.fromBinary(Buffer.from(c1.CreatedEvent.createdEventBlob, 'base64'));
    expect(blob.createdAt).toBe(micros);
    expect(blob.contract.oneofKind === 'v1' && blob.contract.v1.contractId).toBe(created);
  });
});

const NOW = 1_767_225_600_000_000n; // 2026-01-01T00:00:00Z

/** What the writer decides a transaction on: a fresh change, no stored contracts, decided at NOW with 60 s tolerances. */
const decideInputOf = (wf: WellFormedTransaction, o: Partial<DecideTransactionInput> = {}): DecideTransactionInput => ({
  wf,
  synchronizerId: SYNC,
  commandId: 'cmd-1',
  submission: { userId: 'u', actAs: [alice], submissionId: 's' },
  times: { preparationTime: NOW },
  externalTransactionHash: '1220' + 'aa'.repeat(32),
  deduplication: { period: { kind: 'duration', micros: 60_000_000n }, completed: undefined },
  contracts: new Map(),
  now: NOW,
  timeConfig: { preparationTimeToleranceMicros: 60_000_000n, ledgerTimeToleranceMicros: 60_000_000n },
  ...o,
});

describe('decideTransaction', () => {
  it('produces one TransactionCommitted update on the synchronizer, with the command id and the parties', () => {
    const cid = freshContractId();
    const { event } = decideTransaction(
      decideInputOf(
        checkWellFormed(tx([createNode('0', { contractId: cid, signatories: [alice], stakeholders: [alice, bob] })])),
      ),
    );
    expect(event.type).toBe('TransactionCommitted');
    expect(event.update).toEqual({
      kind: 'Transaction',
      synchronizerId: SYNC,
      parties: [alice, bob].sort(),
      commandId: 'cmd-1',
    });
    expect(event.data.submission).toEqual({ userId: 'u', actAs: [alice], submissionId: 's' });
  });
});

describe('rendering at submission (prerenderTransaction)', () => {
  const parent = freshContractId();
  const input = freshContractId();
  const created = freshContractId();
  const transient = freshContractId();
  const rolledBack = freshContractId();
  // Every node kind: a non-consuming root over a rollback, a create, a transient create+consume, a fetch and a consuming
  // exercise of an input contract.
  const nodes = () => [
    exerciseNode('0', {
      ...ref(parent),
      actingParties: [alice],
      consuming: false,
      children: ['1', '3', '4', '5', '6', '7'],
    }),
    rollbackNode('1', ['2']),
    createNode('2', { contractId: rolledBack, signatories: [alice], stakeholders: [alice] }),
    createNode('3', { contractId: created, signatories: [alice], stakeholders: [alice, bob] }),
    createNode('4', { contractId: transient, signatories: [alice], stakeholders: [alice] }),
    exerciseNode('5', { contractId: transient, signatories: [alice], stakeholders: [alice], actingParties: [alice] }),
    fetchNode('6', { ...ref(input), actingParties: [alice] }),
    exerciseNode('7', { ...ref(input), actingParties: [alice], choiceObservers: [carol] }),
  ];
  const state = () => new Map([parent, input].map((c) => [c, stored(c)]));
  const decideInput = (wf: WellFormedTransaction, o: Partial<DecideTransactionInput> = {}) =>
    decideInputOf(wf, { contracts: state(), ...o });

  it('the shape of a transaction is what checkConsistency finds once the state lets it through', () => {
    const wf = checkWellFormed(tx(nodes()));
    const shape = transactionShape(wf)!;
    const checked = checkConsistency({ wf, synchronizerId: SYNC, contracts: state() });
    expect(shape.effective.map((n) => n.nodeId)).toEqual(checked.effective.map((n) => n.nodeId));
    expect([...shape.consumed].sort()).toEqual([...checked.consumed].sort());
    expect(shape.archivedInputs).toEqual([input]);
    expect([...shape.transient]).toEqual([transient]);
  });

  it('a transaction that contradicts itself has no shape; checkConsistency reports it', () => {
    const cid = freshContractId();
    const wf = checkWellFormed(
      tx([
        exerciseNode('0', { ...ref(parent), actingParties: [alice], consuming: false, children: ['1', '2'] }),
        exerciseNode('1', { ...ref(cid), actingParties: [alice] }),
        exerciseNode('2', { ...ref(cid), actingParties: [alice] }),
      ]),
    );
    expect(transactionShape(wf)).toBeUndefined();
    const base = decideInput(wf, { contracts: new Map([parent, cid].map((c) => [c, stored(c)])) });
    expect(prerenderTransaction(base, NOW)).toBeUndefined();
    expect(rejection(() => decideTransaction(base)).code).toBe('CONTRACT_NOT_ACTIVE');
  });

  it('deciding with the rendering gives the event deciding without it gives, with its JSON text', () => {
    const wf = checkWellFormed(tx(nodes()));
    const submittedAt = NOW - 30_000n; // rendered 30 ms before the writer decides
    const base = decideInput(wf);
    const rendered = prerenderTransaction(base, submittedAt)!;
    const withRendering = decideTransaction({ ...base, rendered });
    // Without a rendering the writer chooses the ledger time itself: from the same submission time, the same event.
    const without = decideTransaction({ ...base, now: submittedAt });
    expect(withRendering.ledgerEffectiveTime).toBe(submittedAt);
    expect(withRendering.event.data).toEqual(without.event.data);
    expect(withRendering.event.update).toEqual(without.event.update);
    expect(withRendering.event.dataText).toBe(JSON.stringify(without.event.data));
    expect(without.event.dataText).toBeUndefined();
    expect(withRendering.event.data.events.map((e) => Object.keys(e)[0])).toEqual([
      'ExercisedEvent',
      'CreatedEvent',
      'CreatedEvent',
      'ExercisedEvent',
      'ExercisedEvent',
      'ArchivedEvent',
    ]);
  });

  it('a rendering does not skip a check: the state, the deduplication and the time bounds still decide', () => {
    const wf = checkWellFormed(tx(nodes()));
    const base = decideInput(wf);
    const rendered = prerenderTransaction(base, NOW)!;
    const archived = new Map(state());
    archived.set(input, stored(input, { status: 'archived' }));
    expect(rejection(() => decideTransaction({ ...base, rendered, contracts: archived })).code).toBe(
      'LOCAL_VERDICT_INACTIVE_CONTRACTS',
    );
    const completed = { completionOffset: 7, recordTimeMicros: NOW - 1_000_000n, submissionId: 'earlier' };
    expect(
      rejection(() => decideTransaction({ ...base, rendered, deduplication: { ...base.deduplication, completed } }))
        .code,
    ).toBe('DUPLICATE_COMMAND');
    // The writer decides 11 s after submission: the ledger time chosen then is out of the 10 s tolerance of the record time.
    const late = {
      ...base,
      now: NOW + 11_000_000n,
      timeConfig: { ...base.timeConfig, ledgerTimeToleranceMicros: 10_000_000n },
    };
    expect(rejection(() => decideTransaction({ ...late, rendered })).code).toBe(
      'LOCAL_VERDICT_LEDGER_TIME_OUT_OF_BOUND',
    );
    expect(decideTransaction(late).ledgerEffectiveTime).toBe(late.now);
  });
});
