/**
 * The engine: creates (typed arguments, signatories, observers, precondition, authorization, seeds and contract ids),
 * Canton's errors, the resumable seam (package, contract and time questions answered and resumed), choices with nested
 * creates, interface views and the parties of stored templates.
 */
import { describe, expect, it } from 'vitest';
import {
  CompiledPackages,
  Engine,
  contractIdV1,
  deriveContractDiscriminator,
  deriveNodeSeed,
  deriveTransactionSeed,
  valueToProto,
  type EngineResult,
  type Expr,
  type Package,
  type SubmitContext,
  type TemplateChoice,
} from '@ledgerline/daml-lf';
import {
  P,
  PKG,
  T,
  alt,
  block,
  byName,
  call,
  case_,
  dataType,
  exceptionDef,
  int,
  ite,
  lam,
  list,
  module,
  num,
  pkg,
  proj,
  pure_,
  qn,
  rec,
  record,
  str,
  tcon,
  template,
  throw_,
  upd,
  v,
} from './ast-builders';

const M = 'Test.Engine';
const iouId = qn(M, 'Iou');
const ensuredId = qn(M, 'Ensured');
const stampId = qn(M, 'Stamp');
const stampedId = qn(M, 'Stamped');
const viewId = qn(M, 'IouView');
const ifaceId = qn(M, 'Asset');
const pfId = qn('DA.Exception.PreconditionFailed', 'PreconditionFailed');

const alice = 'alice::1220aaaa';
const bob = 'bob::1220bbbb';
const carol = 'carol::1220cccc';

const parties = (...xs: Expr[]) => list(xs, T.party);
const field = (id: ReturnType<typeof qn>, f: string) => proj(id, f, v('this'));

const choice = (
  name: string,
  parts: Partial<TemplateChoice> & Pick<TemplateChoice, 'controllers' | 'update' | 'returnType'>,
): TemplateChoice => ({
  name,
  consuming: true,
  argBinder: { name: 'arg', type: T.unit },
  selfBinder: 'self',
  ...parts,
});

const iou = {
  ...template('Iou', {
    precond: call('GREATER', field(iouId, 'amount'), num('0.0000000000')),
    signatories: parties(field(iouId, 'issuer')),
    observers: parties(field(iouId, 'owner')),
    implements: new Map([
      [
        `${PKG}:${M}:Asset`,
        {
          iface: ifaceId,
          body: {
            methods: new Map(),
            view: ite(
              call('EQUAL', field(iouId, 'owner'), field(iouId, 'issuer')),
              call('ERROR', str('self-owned')),
              rec(viewId, [
                ['holder', field(iouId, 'owner')],
                ['amount', field(iouId, 'amount')],
              ]),
            ),
          },
        },
      ],
    ]),
  }),
  choices: new Map([
    [
      'Transfer',
      choice('Transfer', {
        argBinder: { name: 'arg', type: tcon(qn(M, 'Transfer')) },
        controllers: parties(field(iouId, 'owner')),
        returnType: T.cid(tcon(iouId)),
        update: upd({
          tag: 'create',
          template: iouId,
          expr: {
            tag: 'recUpd',
            tycon: { tycon: iouId, args: [] },
            field: 'owner',
            record: v('this'),
            update: proj(qn(M, 'Transfer'), 'newOwner', v('arg')),
          },
        }),
      }),
    ],
  ]),
};

const ensured = template('Ensured', {
  // damlc compiles `ensure n > 0` to: if n > 0 then True else throw PreconditionFailed "…"
  precond: ite(
    call('GREATER', field(ensuredId, 'n'), int(0)),
    { tag: 'builtinCon', con: 'TRUE' },
    throw_(tcon(pfId), rec(pfId, [['message', str('Template precondition violated: Ensured')]]), T.bool),
  ),
  signatories: parties(field(ensuredId, 'p')),
});

const stamp = {
  ...template('Stamp', { signatories: parties(field(stampId, 'p')) }),
  choices: new Map([
    [
      'Stamp',
      choice('Stamp', {
        consuming: false,
        controllers: parties(field(stampId, 'p')),
        returnType: T.cid(tcon(stampedId)),
        update: block(
          [['now', T.time, upd({ tag: 'getTime' })]],
          upd({
            tag: 'create',
            template: stampedId,
            expr: rec(stampedId, [
              ['p', field(stampId, 'p')],
              ['at', v('now')],
            ]),
          }),
        ),
      }),
    ],
    [
      'Fail',
      choice('Fail', {
        controllers: parties(field(stampId, 'p')),
        returnType: T.unit,
        update: pure_(call('ERROR', str('no way')), T.unit),
      }),
    ],
    [
      'TryCreate',
      choice('TryCreate', {
        consuming: false,
        controllers: parties(field(stampId, 'p')),
        returnType: T.unit,
        // try { create Stamped; throw PreconditionFailed } catch _ -> Some (create Stamped)
        update: upd({
          tag: 'tryCatch',
          returnType: T.unit,
          tryExpr: block(
            [
              [
                'c',
                T.cid(tcon(stampedId)),
                upd({
                  tag: 'create',
                  template: stampedId,
                  expr: rec(stampedId, [
                    ['p', field(stampId, 'p')],
                    ['at', { tag: 'lit', lit: { tag: 'timestamp', value: 0n } }],
                  ]),
                }),
              ],
            ],
            pure_(throw_(tcon(pfId), rec(pfId, [['message', str('rolled back')]]), T.unit), T.unit),
          ),
          binder: 'e',
          catchExpr: {
            tag: 'some',
            type: T.unit,
            value: block(
              [
                [
                  'c',
                  T.cid(tcon(stampedId)),
                  upd({
                    tag: 'create',
                    template: stampedId,
                    expr: rec(stampedId, [
                      ['p', field(stampId, 'p')],
                      ['at', { tag: 'lit', lit: { tag: 'timestamp', value: 1n } }],
                    ]),
                  }),
                ],
              ],
              pure_({ tag: 'builtinCon', con: 'UNIT' }, T.unit),
            ),
          },
        }),
      }),
    ],
    [
      'Before',
      choice('Before', {
        consuming: false,
        argBinder: { name: 'arg', type: tcon(qn(M, 'Before')) },
        controllers: parties(field(stampId, 'p')),
        returnType: T.bool,
        update: upd({ tag: 'ledgerTimeLt', expr: proj(qn(M, 'Before'), 'time', v('arg')) }),
      }),
    ],
  ]),
};
const stamped = template('Stamped', { signatories: parties(field(stampedId, 'p')) });

const nestId = qn(M, 'Nest');
const holderId = qn(M, 'Holder');
const nestedId = qn(M, 'Nested');
// nest n = if n == 0 then Nest { next = None } else Nest { next = Some (nest (n - 1)) }
const nestFn = {
  name: 'nest',
  type: T.arrow(T.int, tcon(nestId)),
  expr: lam(
    [['n', T.int]],
    ite(
      call('EQUAL', v('n'), int(0)),
      rec(nestId, [['next', { tag: 'none', type: tcon(nestId) }]]),
      rec(nestId, [
        [
          'next',
          {
            tag: 'some',
            type: tcon(nestId),
            value: { tag: 'app', fun: { tag: 'val', ref: qn(M, 'nest') }, args: [call('SUB_INT64', v('n'), int(1))] },
          },
        ],
      ]),
    ),
  ),
};
const nestedT = template('Nested', { signatories: parties(field(nestedId, 'p')) });
const holder = {
  ...template('Holder', { signatories: parties(field(holderId, 'p')) }),
  choices: new Map([
    [
      'MakeNested',
      choice('MakeNested', {
        consuming: false,
        controllers: parties(field(holderId, 'p')),
        returnType: T.cid(tcon(nestedId)),
        update: upd({
          tag: 'create',
          template: nestedId,
          expr: rec(nestedId, [
            ['p', field(holderId, 'p')],
            ['n', { tag: 'app', fun: { tag: 'val', ref: qn(M, 'nest') }, args: [field(holderId, 'depth')] }],
          ]),
        }),
      }),
    ],
    [
      'Down',
      // Down n: if n == 0 then pure 0 else do c <- create this; r <- exercise c Down (n - 1); pure (r + 1)
      choice('Down', {
        argBinder: { name: 'arg', type: T.int },
        controllers: parties(field(holderId, 'p')),
        returnType: T.int,
        update: case_(call('EQUAL', v('arg'), int(0)), [
          alt(P.true, pure_(int(0), T.int)),
          alt(
            P.default,
            block(
              [
                ['c', T.cid(tcon(holderId)), upd({ tag: 'create', template: holderId, expr: v('this') })],
                [
                  'r',
                  T.int,
                  upd({
                    tag: 'exercise',
                    template: holderId,
                    choice: 'Down',
                    cid: v('c'),
                    arg: call('SUB_INT64', v('arg'), int(1)),
                  }),
                ],
              ],
              pure_(call('ADD_INT64', v('r'), int(1)), T.int),
            ),
          ),
        ]),
      }),
    ],
    [
      'ArchiveThenFail',
      choice('ArchiveThenFail', {
        consuming: false,
        argBinder: { name: 'arg', type: tcon(qn(M, 'Target')) },
        controllers: parties(field(holderId, 'p')),
        returnType: T.unit,
        // try { exercise target Transfer (consumes it); throw } catch -> Some (exercise target Transfer): legal again
        update: upd({
          tag: 'tryCatch',
          returnType: T.unit,
          tryExpr: block(
            [
              [
                'x',
                T.cid(tcon(iouId)),
                upd({
                  tag: 'exercise',
                  template: iouId,
                  choice: 'Transfer',
                  cid: proj(qn(M, 'Target'), 'cid', v('arg')),
                  arg: rec(qn(M, 'Transfer'), [['newOwner', field(holderId, 'p')]]),
                }),
              ],
            ],
            pure_(throw_(tcon(pfId), rec(pfId, [['message', str('undo')]]), T.unit), T.unit),
          ),
          binder: 'e',
          catchExpr: {
            tag: 'some',
            type: T.unit,
            value: block(
              [
                [
                  'x',
                  T.cid(tcon(iouId)),
                  upd({
                    tag: 'exercise',
                    template: iouId,
                    choice: 'Transfer',
                    cid: proj(qn(M, 'Target'), 'cid', v('arg')),
                    arg: rec(qn(M, 'Transfer'), [['newOwner', field(holderId, 'p')]]),
                  }),
                ],
              ],
              pure_({ tag: 'builtinCon', con: 'UNIT' }, T.unit),
            ),
          },
        }),
      }),
    ],
  ]),
};

const viewOf = (x: Expr): Expr => ({ tag: 'viewInterface', iface: ifaceId, expr: x });
const assetIface = {
  tycon: 'Asset',
  param: 'this',
  methods: new Map(),
  view: tcon(viewId),
  requires: [],
  choices: new Map([
    [
      'Peek',
      choice('Peek', {
        consuming: false,
        controllers: parties(proj(viewId, 'holder', viewOf(v('this')))),
        returnType: T.num(10),
        update: block(
          [['fetched', tcon(ifaceId), upd({ tag: 'fetchInterface', iface: ifaceId, cid: v('self') })]],
          pure_(proj(viewId, 'amount', viewOf(v('fetched'))), T.num(10)),
        ),
      }),
    ],
  ]),
};

const engineModule = module(M, {
  dataTypes: byName(
    record('Iou', [
      ['issuer', T.party],
      ['owner', T.party],
      ['amount', T.num(10)],
    ]),
    record('Ensured', [
      ['p', T.party],
      ['n', T.int],
    ]),
    record('Stamp', [['p', T.party]]),
    record('Stamped', [
      ['p', T.party],
      ['at', T.time],
    ]),
    record('Transfer', [['newOwner', T.party]]),
    record('Before', [['time', T.time]]),
    record('Nest', [['next', T.opt(tcon(qn(M, 'Nest')))]]),
    record('Target', [['cid', T.cid(tcon(iouId))]]),
    record('Holder', [
      ['p', T.party],
      ['depth', T.int],
    ]),
    record('Nested', [
      ['p', T.party],
      ['n', tcon(qn(M, 'Nest'))],
    ]),
    record('IouView', [
      ['holder', T.party],
      ['amount', T.num(10)],
    ]),
    dataType('Asset', { tag: 'interface' }),
  ),
  templates: byName(iou, ensured, stamp, stamped, holder, nestedT),
  interfaces: new Map([['Asset', assetIface]]),
  values: byName(nestFn),
});
const pfModule = module('DA.Exception.PreconditionFailed', {
  dataTypes: byName(record('PreconditionFailed', [['message', T.text]])),
  exceptions: byName(exceptionDef('PreconditionFailed', lam([['e', tcon(pfId)]], proj(pfId, 'message', v('e'))))),
});
const testPkg: Package = pkg([engineModule, pfModule]);

const SEED = Buffer.alloc(32, 7);
const ctx = (over: Partial<SubmitContext> = {}): SubmitContext => ({
  actAs: [alice],
  readAs: [],
  submissionSeed: SEED,
  participantId: 'participant1::1220ffff',
  preparationTime: 1_754_534_109_899_822n,
  ...over,
});
const engine = () => new Engine(new CompiledPackages([testPkg]));
const createIou = (json: unknown) => ({ kind: 'create' as const, templateId: iouId, argument: { json } });

function done(r: EngineResult) {
  if (r.tag !== 'done')
    throw new Error(`expected done, got ${JSON.stringify(r, (_, x) => (typeof x === 'bigint' ? x.toString() : x))}`);
  return r;
}
function errorOf(r: EngineResult) {
  if (r.tag !== 'error') throw new Error(`expected an error, got ${r.tag}`);
  return r.error;
}
const createNode = (r: ReturnType<typeof done>, i = 0) => {
  const n = r.transaction.nodes[i].versionedNode;
  if (n.oneofKind !== 'v1' || n.v1.nodeType.oneofKind !== 'create') throw new Error('not a create');
  return n.v1.nodeType.create;
};

describe('creates', () => {
  it('evaluates signatories and observers from the template and types the argument', () => {
    const r = done(engine().submit([createIou({ issuer: alice, owner: bob, amount: '12.5' })], ctx()));
    const c = createNode(r);
    expect(c.signatories).toEqual([alice]);
    expect(c.stakeholders).toEqual([alice, bob].sort());
    expect(c.packageName).toBe('test-package');
    expect(c.templateId).toEqual({ packageId: PKG, moduleName: M, entityName: 'Iou' });
    expect(c.lfVersion).toBe('2.1');
    const arg = c.argument!.sum;
    expect(arg.oneofKind === 'record' && arg.record.fields.map((f) => [f.label, f.value?.sum])).toEqual([
      ['issuer', { oneofKind: 'party', party: alice }],
      ['owner', { oneofKind: 'party', party: bob }],
      ['amount', { oneofKind: 'numeric', numeric: '12.5000000000' }],
    ]);
  });

  it('seeds the node and derives Canton’s V1 contract id', () => {
    const r = done(
      engine().submit(
        [
          createIou({ issuer: alice, owner: bob, amount: '1' }),
          createIou({ issuer: alice, owner: alice, amount: '2' }),
        ],
        ctx(),
      ),
    );
    const txSeed = deriveTransactionSeed(SEED, 'participant1::1220ffff', 1_754_534_109_899_822n);
    expect(r.metadata.transactionSeed).toEqual(txSeed);
    for (const i of [0, 1]) {
      const seed = deriveNodeSeed(txSeed, i);
      expect(r.metadata.nodeSeeds[i]).toEqual({ nodeId: i, seed });
      expect(r.transaction.nodeSeeds[i]).toEqual({ nodeId: i, seed });
      const c = createNode(r, i);
      expect(c.contractId).toBe(
        contractIdV1(deriveContractDiscriminator(seed, 1_754_534_109_899_822n, c.stakeholders)),
      );
      expect(c.contractId).toMatch(/^00[0-9a-f]{64}$/);
    }
    expect(r.transaction.roots).toEqual(['0', '1']);
    expect(r.metadata.usedPackages).toEqual([PKG]);
    expect(r.results.map((x) => x.t === 'cid' && x.v)).toEqual([
      createNode(r, 0).contractId,
      createNode(r, 1).contractId,
    ]);
  });

  it('refuses when actAs does not authorize the signatories (DAML_AUTHORIZATION_ERROR)', () => {
    const e = errorOf(engine().submit([createIou({ issuer: bob, owner: alice, amount: '1' })], ctx()));
    expect(e.code).toBe('DAML_AUTHORIZATION_ERROR');
    expect(e.category).toBe(8);
    expect(e.message).toBe(
      `Interpretation error: Error: node NodeId(0) (${PKG}:${M}:Iou) requires authorizers ${bob}, but only ${alice} were given`,
    );
  });

  it('a precondition that is False → TEMPLATE_PRECONDITION_VIOLATED', () => {
    const e = errorOf(engine().submit([createIou({ issuer: alice, owner: bob, amount: '0' })], ctx()));
    expect(e.code).toBe('TEMPLATE_PRECONDITION_VIOLATED');
    expect(e.message).toContain(`Update failed due to precondition violation when creating ${PKG}:${M}:Iou`);
  });

  it('a damlc-style ensure that throws PreconditionFailed → DAML_FAILURE with UNHANDLED_EXCEPTION/… error id', () => {
    const e = errorOf(
      engine().submit([{ kind: 'create', templateId: ensuredId, argument: { json: { p: alice, n: '0' } } }], ctx()),
    );
    expect(e.code).toBe('DAML_FAILURE');
    expect(e.category).toBe(9);
    expect(e.metadata).toEqual({
      error_id: 'UNHANDLED_EXCEPTION/DA.Exception.PreconditionFailed:PreconditionFailed',
      exercise_trace: `    in create command ${PKG.slice(0, 8)}:${M}:Ensured.\n`,
    });
    expect(e.message).toBe(
      'Interpretation error: Error: User failure: UNHANDLED_EXCEPTION/DA.Exception.PreconditionFailed:PreconditionFailed (error category 9): Template precondition violated: Ensured',
    );
    expect(
      done(
        engine().submit([{ kind: 'create', templateId: ensuredId, argument: { json: { p: alice, n: '3' } } }], ctx()),
      ).transaction.nodes,
    ).toHaveLength(1);
  });

  it('ill-typed arguments and unknown templates → COMMAND_PREPROCESSING_FAILED / INVALID_ARGUMENT', () => {
    expect(errorOf(engine().submit([createIou({ issuer: alice, amount: '1' })], ctx()))).toMatchObject({
      code: 'COMMAND_PREPROCESSING_FAILED',
      message: 'Missing non-optional fields: Set(owner)',
    });
    expect(
      errorOf(engine().submit([createIou({ issuer: alice, owner: bob, amount: '1', x: 1 })], ctx())),
    ).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(
      errorOf(engine().submit([{ kind: 'create', templateId: qn(M, 'Nope'), argument: { json: {} } }], ctx())),
    ).toMatchObject({
      code: 'COMMAND_PREPROCESSING_FAILED',
      message: `unknown template ${PKG}:${M}:Nope`,
    });
  });

  it('normalised values leave out record ids and labels', () => {
    const c = createNode(
      done(engine().submit([createIou({ issuer: alice, owner: bob, amount: '1' })], ctx({ enrichValues: false }))),
    );
    expect(c.argument!.sum.oneofKind === 'record' && c.argument!.sum.record.recordId).toBeUndefined();
  });
});

describe('the resumable seam', () => {
  it('asks for a missing package and resumes with it', () => {
    const e = new Engine();
    const r = e.submit([createIou({ issuer: alice, owner: bob, amount: '1' })], ctx());
    expect(r.tag).toBe('needPackage');
    if (r.tag !== 'needPackage') return;
    expect(r.packageId).toBe(PKG);
    const c = createNode(done(r.resume(testPkg)));
    expect(c.signatories).toEqual([alice]);
    // An unknown package ends in PACKAGE_NOT_FOUND.
    const r2 = new Engine().submit([createIou({})], ctx());
    expect(r2.tag === 'needPackage' && errorOf(r2.resume(undefined)).code).toBe('PACKAGE_NOT_FOUND');
  });

  it('asks for a ledger contract, exercises it and asks for the time', () => {
    const e = engine();
    const stampCid = '00' + '11'.repeat(32);
    let r = e.submit(
      [{ kind: 'exercise', templateId: stampId, contractId: stampCid, choice: 'Stamp', argument: { json: null } }],
      ctx(),
    );
    expect(r.tag).toBe('needContract');
    if (r.tag !== 'needContract') return;
    expect(r.contractId).toBe(stampCid);
    const stored = {
      contractId: stampCid,
      templateId: stampId,
      packageName: 'test-package',
      argument: valueToProto(
        { t: 'record', id: stampId, f: ['p'], v: [{ t: 'party', v: alice }] },
        { enriched: false },
      ),
      signatories: [alice],
      stakeholders: [alice],
      createdAt: 0n,
    };
    r = r.resume(stored);
    expect(r.tag).toBe('needTime');
    if (r.tag !== 'needTime') return;
    const d = done(r.resume(1_800_000_000_000_000n));
    // exercise (0) with a create child (1)
    const ex = d.transaction.nodes[0].versionedNode;
    expect(
      ex.oneofKind === 'v1' && ex.v1.nodeType.oneofKind === 'exercise' && ex.v1.nodeType.exercise.children,
    ).toEqual(['1']);
    expect(ex.oneofKind === 'v1' && ex.v1.nodeType.oneofKind === 'exercise' && ex.v1.nodeType.exercise.consuming).toBe(
      false,
    );
    const child = createNode(d, 1);
    const exSeed = deriveNodeSeed(deriveTransactionSeed(SEED, 'participant1::1220ffff', 1_754_534_109_899_822n), 0);
    expect(child.contractId).toBe(
      contractIdV1(deriveContractDiscriminator(deriveNodeSeed(exSeed, 0), 1_754_534_109_899_822n, [alice])),
    );
    expect(d.metadata.ledgerTimeBounds).toEqual({ min: 1_800_000_000_000_000n, max: 1_800_000_000_000_000n });
    expect(d.metadata.dependsOnTime).toBe(true);
    expect(d.metadata.inputContracts.map((c) => c.contractId)).toEqual([stampCid]);
    expect(d.transaction.roots).toEqual(['0']);
  });

  it('forbidLocalContractIds: unsuffixed ids in commands → COMMAND_PREPROCESSING_FAILED unless stored from before suffixing', () => {
    const local = '00' + '55'.repeat(32);
    const suffixed = local + 'ca121220' + '66'.repeat(32);
    const illegal = {
      code: 'COMMAND_PREPROCESSING_FAILED',
      message: `Illegal Contract ID "${local}", non-suffixed V1 Contract IDs are forbidden`,
    };
    const stamp = (contractId: string, over: Partial<SubmitContext> = {}) =>
      engine().submit(
        [{ kind: 'exercise', templateId: stampId, contractId, choice: 'Stamp', argument: { json: null } }],
        ctx({ forbidLocalContractIds: true, ...over }),
      );
    expect(errorOf(stamp(local))).toMatchObject(illegal);
    expect(stamp(suffixed)).toMatchObject({ tag: 'needContract', contractId: suffixed });
    expect(stamp(local, { storedLocalContractIds: new Set([local]) })).toMatchObject({
      tag: 'needContract',
      contractId: local,
    });
    expect(stamp(local, { forbidLocalContractIds: false })).toMatchObject({ tag: 'needContract', contractId: local });
    // Inside a choice argument too, before any contract is asked for.
    const target = (cid: string) =>
      engine().submit(
        [
          {
            kind: 'exercise',
            templateId: holderId,
            contractId: suffixed,
            choice: 'ArchiveThenFail',
            argument: { json: { cid } },
          },
        ],
        ctx({ forbidLocalContractIds: true }),
      );
    expect(errorOf(target(local))).toMatchObject(illegal);
    expect(target(suffixed).tag).toBe('needContract');
  });

  it('a malformed answer ends in an error result, never an exception', () => {
    const cid = '00' + '44'.repeat(32);
    const ask = () =>
      engine().submit(
        [{ kind: 'exercise', templateId: stampId, contractId: cid, choice: 'Stamp', argument: { json: {} } }],
        ctx(),
      );
    const stored = {
      contractId: cid,
      templateId: stampId,
      packageName: 'test-package',
      argument: valueToProto({ t: 'text', v: 'not a record' }),
      signatories: [alice],
      stakeholders: [alice],
      createdAt: 0n,
    };
    const r = ask();
    expect(r.tag === 'needContract' && errorOf(r.resume(stored)).code).toBe('DAML_INTERPRETATION_ERROR');
    const good = {
      ...stored,
      argument: valueToProto({ t: 'record', id: stampId, f: ['p'], v: [{ t: 'party', v: alice }] }),
    };
    const r2 = ask();
    const r3 = r2.tag === 'needContract' ? r2.resume(good) : r2;
    expect(r3.tag === 'needTime' && errorOf(r3.resume(5 as unknown as bigint)).code).toBe('DAML_INTERPRETATION_ERROR');
  });

  it('an unknown contract → CONTRACT_NOT_FOUND; a user error → INTERPRETATION_USER_ERROR', () => {
    const cid = '00' + '22'.repeat(32);
    const r = engine().submit(
      [{ kind: 'exercise', templateId: stampId, contractId: cid, choice: 'Stamp', argument: { json: {} } }],
      ctx(),
    );
    expect(r.tag === 'needContract' && errorOf(r.resume(undefined))).toMatchObject({
      code: 'CONTRACT_NOT_FOUND',
      message: `Contract could not be found with id ${cid}`,
    });
    const created = engine().submit(
      [
        {
          kind: 'createAndExercise',
          templateId: stampId,
          createArgument: { json: { p: alice } },
          choice: 'Fail',
          choiceArgument: { json: {} },
        },
      ],
      ctx(),
    );
    expect(errorOf(created)).toMatchObject({
      code: 'INTERPRETATION_USER_ERROR',
      message: 'Interpretation error: Error: User abort: no way',
    });
  });
});

describe('choices (the start of issue 33)', () => {
  it('createAndExercise runs the choice with its controller’s authority; a wrong controller is refused', () => {
    const cmd = {
      kind: 'createAndExercise' as const,
      templateId: iouId,
      createArgument: { json: { issuer: alice, owner: alice, amount: '5' } },
      choice: 'Transfer',
      choiceArgument: { json: { newOwner: bob } },
    };
    const d = done(engine().submit([cmd], ctx()));
    expect(d.transaction.roots).toEqual(['0', '1']);
    expect(createNode(d, 2).stakeholders).toEqual([alice, bob].sort());
    const refused = engine().submit(
      [{ ...cmd, createArgument: { json: { issuer: alice, owner: carol, amount: '5' } } }],
      ctx(),
    );
    expect(errorOf(refused)).toMatchObject({
      code: 'DAML_AUTHORIZATION_ERROR',
      message: `Interpretation error: Error: node NodeId(1) (${PKG}:${M}:Iou) requires authorizers ${carol}, but only ${alice} were given`,
    });
  });

  it('a consumed contract cannot be exercised again (CONTRACT_NOT_ACTIVE)', () => {
    const e = engine();
    const first = done(e.submit([createIou({ issuer: alice, owner: alice, amount: '5' })], ctx()));
    const cid = createNode(first).contractId;
    const stored = {
      contractId: cid,
      templateId: iouId,
      packageName: 'test-package',
      argument: createNode(first).argument!,
      signatories: [alice],
      stakeholders: [alice],
      createdAt: 0n,
    };
    const ex = {
      kind: 'exercise' as const,
      templateId: iouId,
      contractId: cid,
      choice: 'Transfer',
      argument: { json: { newOwner: alice } },
    };
    const r = e.submit([ex, ex], ctx());
    const err = r.tag === 'needContract' ? errorOf(r.resume(stored)) : undefined;
    expect(err?.code).toBe('CONTRACT_NOT_ACTIVE');
    // Canton's wording (speedy/Pretty.scala): the consuming node is the first command's exercise, NodeId(0).
    expect(err?.message).toMatch(
      /Update failed due to fetch of an inactive contract \S+ \(\S+\)\.\nThe contract had been consumed in sub-transaction #NodeId\(0\):$/,
    );
  });
});

describe('rollback and time', () => {
  const onStamp = (choiceName: string, argument: unknown, over: Partial<SubmitContext> = {}) =>
    engine().submit(
      [
        {
          kind: 'createAndExercise',
          templateId: stampId,
          createArgument: { json: { p: alice } },
          choice: choiceName,
          choiceArgument: { json: argument },
        },
      ],
      ctx(over),
    );

  it('a caught exception rolls back the try block’s nodes into a rollback node; seeds continue across it', () => {
    const d = done(onStamp('TryCreate', {}));
    const kinds = d.transaction.nodes.map((n) =>
      n.versionedNode.oneofKind === 'v1' ? n.versionedNode.v1.nodeType.oneofKind : undefined,
    );
    // create Stamp (0), exercise (1) → [rollback (2) → [create (3)], create (4)]
    expect(kinds).toEqual(['create', 'exercise', 'rollback', 'create', 'create']);
    const ex = d.transaction.nodes[1].versionedNode;
    expect(
      ex.oneofKind === 'v1' && ex.v1.nodeType.oneofKind === 'exercise' && ex.v1.nodeType.exercise.children,
    ).toEqual(['2', '4']);
    const rb = d.transaction.nodes[2].versionedNode;
    expect(
      rb.oneofKind === 'v1' && rb.v1.nodeType.oneofKind === 'rollback' && rb.v1.nodeType.rollback.children,
    ).toEqual(['3']);
    expect(d.metadata.nodeSeeds.map((s) => s.nodeId)).toEqual([0, 1, 3, 4]);
    const exSeed = d.metadata.nodeSeeds[1].seed;
    expect(d.metadata.nodeSeeds[2].seed).toEqual(deriveNodeSeed(exSeed, 0));
    expect(d.metadata.nodeSeeds[3].seed).toEqual(deriveNodeSeed(exSeed, 1));
  });

  it('ledger-time comparisons narrow the time bounds', () => {
    const later = done(onStamp('Before', { time: '2030-01-01T00:00:00Z' }, { ledgerTime: 1_800_000_000_000_000n }));
    expect(later.results[0]).toEqual({ t: 'bool', v: true });
    expect(later.metadata.ledgerTimeBounds).toEqual({ max: 1_893_456_000_000_000n - 1n });
    const earlier = done(onStamp('Before', { time: '2020-01-01T00:00:00Z' }, { ledgerTime: 1_800_000_000_000_000n }));
    expect(earlier.results[0]).toEqual({ t: 'bool', v: false });
    expect(earlier.metadata.ledgerTimeBounds).toEqual({ min: 1_577_836_800_000_000n });
    expect(earlier.metadata.dependsOnTime).toBe(true);
  });
});

describe('values and rollback of archives', () => {
  const make = (depth: number) =>
    engine().submit(
      [
        {
          kind: 'createAndExercise',
          templateId: holderId,
          createArgument: { json: { p: alice, depth: String(depth) } },
          choice: 'MakeNested',
          choiceArgument: { json: {} },
        },
      ],
      ctx(),
    );
  it('values nested deeper than 100 levels are refused (VALUE_NESTING), not a stack overflow', () => {
    expect(done(make(40)).transaction.nodes).toHaveLength(3);
    expect(errorOf(make(150))).toMatchObject({ code: 'VALUE_NESTING' });
    expect(errorOf(make(100_000))).toMatchObject({ code: 'VALUE_NESTING' });
  });

  it('nested exercises 2,000 deep run on the explicit stack', () => {
    const d = done(
      engine().submit(
        [
          {
            kind: 'createAndExercise',
            templateId: holderId,
            createArgument: { json: { p: alice, depth: '0' } },
            choice: 'Down',
            choiceArgument: { json: '2000' },
          },
        ],
        ctx(),
      ),
    );
    expect(d.results[0]).toEqual({ t: 'int64', v: 2000n });
    expect(d.transaction.nodes).toHaveLength(1 + 2001 + 2000);
    expect(d.transaction.roots).toEqual(['0', '1']);
  });

  it('an archive inside a rolled-back scope is undone', () => {
    const e = engine();
    const iouCmd = createIou({ issuer: alice, owner: alice, amount: '1' });
    const first = done(e.submit([iouCmd], ctx()));
    const cid = createNode(first).contractId;
    const stored = {
      contractId: cid,
      templateId: iouId,
      packageName: 'test-package',
      argument: createNode(first).argument!,
      signatories: [alice],
      stakeholders: [alice],
      createdAt: 0n,
    };
    const r = e.submit(
      [
        {
          kind: 'createAndExercise',
          templateId: holderId,
          createArgument: { json: { p: alice, depth: '0' } },
          choice: 'ArchiveThenFail',
          choiceArgument: { json: { cid } },
        },
      ],
      ctx({ submissionSeed: Buffer.alloc(32, 9) }),
    );
    const d = done(r.tag === 'needContract' ? r.resume(stored) : r);
    const kinds = d.transaction.nodes.map((n) =>
      n.versionedNode.oneofKind === 'v1' ? n.versionedNode.v1.nodeType.oneofKind : undefined,
    );
    // create Holder, exercise ArchiveThenFail → [rollback → [exercise Transfer → [create]], exercise Transfer → [create]]
    expect(kinds).toEqual(['create', 'exercise', 'rollback', 'exercise', 'create', 'exercise', 'create']);
  });

  it('exposes choice signatures and re-renders stored values enriched', () => {
    const e = engine();
    expect(e.choiceSignature(iouId, 'Transfer')).toEqual({
      argType: tcon(qn(M, 'Transfer')),
      returnType: T.cid(tcon(iouId)),
      consuming: true,
    });
    expect(e.choiceSignature(iouId, 'Nope')).toBeUndefined();
    expect(e.templateInfo(iouId)).toEqual({
      packageName: 'test-package',
      interfaces: [ifaceId],
      choices: ['Transfer'],
      hasKey: false,
    });
    expect(e.templateInfo(ifaceId)).toBeUndefined();
    const plain = valueToProto(
      { t: 'record', id: qn(M, 'Transfer'), f: ['newOwner'], v: [{ t: 'party', v: bob }] },
      { enriched: false },
    );
    const r = e.normaliseValue(tcon(qn(M, 'Transfer')), plain);
    expect(r.ok && r.value.sum.oneofKind === 'record' && r.value.sum.record.fields[0].label).toBe('newOwner');
  });
});

describe('interface choices', () => {
  it('an ExerciseCommand by interface id runs the interface choice; the nodes carry the interface id', () => {
    const e = engine();
    const first = done(e.submit([createIou({ issuer: alice, owner: bob, amount: '7' })], ctx()));
    const c = createNode(first);
    const stored = {
      contractId: c.contractId,
      templateId: iouId,
      packageName: 'test-package',
      argument: c.argument!,
      signatories: c.signatories,
      stakeholders: c.stakeholders,
      createdAt: 0n,
    };
    const r = e.submit(
      [{ kind: 'exercise', templateId: ifaceId, contractId: c.contractId, choice: 'Peek', argument: { json: {} } }],
      ctx({ actAs: [bob], submissionSeed: Buffer.alloc(32, 3) }),
    );
    const d = done(r.tag === 'needContract' ? r.resume(stored) : r);
    expect(d.results[0]).toEqual({ t: 'numeric', v: { u: 70_000_000_000n, s: 10 } });
    const [ex, fetch] = d.transaction.nodes.map((n) =>
      n.versionedNode.oneofKind === 'v1' ? n.versionedNode.v1.nodeType : undefined,
    );
    expect(
      ex?.oneofKind === 'exercise' && [ex.exercise.interfaceId, ex.exercise.templateId, ex.exercise.actingParties],
    ).toEqual([
      { packageId: PKG, moduleName: M, entityName: 'Asset' },
      { packageId: PKG, moduleName: M, entityName: 'Iou' },
      [bob],
    ]);
    expect(fetch?.oneofKind === 'fetch' && fetch.fetch.interfaceId).toEqual({
      packageId: PKG,
      moduleName: M,
      entityName: 'Asset',
    });
  });

  it('a contract whose template does not implement the interface → CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE', () => {
    const cid = '00' + '33'.repeat(32);
    const stored = {
      contractId: cid,
      templateId: stampId,
      packageName: 'test-package',
      argument: valueToProto({ t: 'record', id: stampId, f: ['p'], v: [{ t: 'party', v: alice }] }),
      signatories: [alice],
      stakeholders: [alice],
      createdAt: 0n,
    };
    const r = engine().submit(
      [{ kind: 'exercise', templateId: ifaceId, contractId: cid, choice: 'Peek', argument: { json: {} } }],
      ctx(),
    );
    expect(r.tag === 'needContract' && errorOf(r.resume(stored)).code).toBe('CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE');
  });
});

describe('interface values in expressions', () => {
  it('toInterface, view, signatories, observers, template type rep and fromInterface', () => {
    const e = engine();
    const iouRec = rec(iouId, [
      ['issuer', { tag: 'lit', lit: { tag: 'text', value: 'x' } }],
      ['owner', str('y')],
      ['amount', num('1.0000000000')],
    ]);
    // parties as text are enough for these expressions: they only project fields
    const asIface: Expr = { tag: 'toInterface', iface: ifaceId, template: iouId, expr: iouRec };
    const ev = (x: Expr) => {
      const r = e.interpreter.evaluate(x);
      if (r.tag !== 'done') throw new Error(JSON.stringify(r.tag === 'error' ? r.error : r.tag));
      return r.value;
    };
    expect(ev({ tag: 'viewInterface', iface: ifaceId, expr: asIface })).toMatchObject({
      t: 'record',
      f: ['holder', 'amount'],
    });
    expect(ev({ tag: 'signatoryInterface', iface: ifaceId, expr: asIface })).toMatchObject({
      t: 'list',
      v: { h: { t: 'text', v: 'x' }, tl: null },
    });
    expect(ev({ tag: 'observerInterface', iface: ifaceId, expr: asIface })).toMatchObject({
      t: 'list',
      v: { h: { t: 'text', v: 'y' }, tl: null },
    });
    expect(ev({ tag: 'interfaceTemplateTypeRep', iface: ifaceId, expr: asIface })).toEqual({
      t: 'typerep',
      ty: { tag: 'con', tycon: iouId, args: [] },
    });
    expect(ev({ tag: 'fromInterface', iface: ifaceId, template: iouId, expr: asIface })).toMatchObject({
      t: 'optional',
      v: { t: 'record' },
    });
    expect(ev({ tag: 'fromInterface', iface: ifaceId, template: stampId, expr: asIface })).toEqual({
      t: 'optional',
      v: null,
    });
  });
});

describe('stored contracts: parties and interface views', () => {
  const arg = (owner: string) =>
    valueToProto({
      t: 'record',
      id: iouId,
      f: ['issuer', 'owner', 'amount'],
      v: [
        { t: 'party', v: alice },
        { t: 'party', v: owner },
        { t: 'numeric', v: { u: 10n, s: 10 } },
      ],
    });
  it('computes signatories and observers of a stored template', () => {
    expect(engine().contractParties(iouId, arg(bob))).toEqual({
      ok: true,
      signatories: [alice],
      observers: [bob],
      stakeholders: [alice, bob].sort(),
    });
  });
  it('evaluates the interface view, or renders its failure as a viewStatus', () => {
    const view = engine().interfaceView(iouId, ifaceId, arg(bob));
    expect(view.tag).toBe('view');
    expect(
      view.tag === 'view' && view.proto.sum.oneofKind === 'record' && view.proto.sum.record.fields.map((f) => f.label),
    ).toEqual(['holder', 'amount']);
    const failed = engine().interfaceView(iouId, ifaceId, arg(alice));
    expect(failed).toMatchObject({
      tag: 'failed',
      status: { code: 9, message: 'Interpretation error: Error: User abort: self-owned' },
    });
    const notImpl = engine().interfaceView(
      stampId,
      ifaceId,
      valueToProto({ t: 'record', id: stampId, f: ['p'], v: [{ t: 'party', v: alice }] }),
    );
    expect(notImpl).toMatchObject({
      tag: 'failed',
      error: { code: 'CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE' },
      status: { code: 3 },
    });
  });
});

void [alt, case_, P, str];
