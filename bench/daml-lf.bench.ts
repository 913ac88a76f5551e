/**
 * The Daml-LF interpreter and engine alone (no server, no database), on packages built in memory:
 * - a FOLDL over a 100,000-element list built by a recursive Daml function (time and machine steps; no stack failure);
 * - 200,000-deep non-tail recursion;
 * - Engine.submit of one create (JSON argument typed, precondition/signatories/observers evaluated, seeds, contract id);
 * - a chain of 2,000 nested exercises, each creating the next contract (per-node cost).
 *
 *   npm run bench:daml-lf            (BENCH_ROUNDS=5 by default)
 */
import {
  CompiledPackages,
  Engine,
  Interpreter,
  type BuiltinFunction,
  type Expr,
  type Module,
  type Package,
  type QualifiedName,
  type TemplateChoice,
  type Type,
} from '@ledgerline/daml-lf';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PKG = 'bench000000000000000000000000000000000000000000000000000000000000';
const M = 'Bench';
const qn = (name: string): QualifiedName => ({ packageId: PKG, module: M, name });
const tb = (builtin: Extract<Type, { tag: 'builtin' }>['builtin'], ...args: Type[]): Type => ({
  tag: 'builtin',
  builtin,
  args,
});
const INT = tb('INT64');
const PARTY = tb('PARTY');
const v = (name: string): Expr => ({ tag: 'var', name });
const int = (n: number): Expr => ({ tag: 'lit', lit: { tag: 'int64', value: BigInt(n) } });
const call = (fn: BuiltinFunction, ...args: Expr[]): Expr => ({ tag: 'app', fun: { tag: 'builtin', fn }, args });
const app = (fun: Expr, ...args: Expr[]): Expr => ({ tag: 'app', fun, args });
const val = (name: string): Expr => ({ tag: 'val', ref: qn(name) });
const lam = (names: string[], body: Expr): Expr => ({
  tag: 'abs',
  params: names.map((name) => ({ name, type: INT })),
  body,
});
const ite = (c: Expr, t: Expr, e: Expr): Expr => ({
  tag: 'case',
  scrut: c,
  alts: [
    { pattern: { tag: 'builtinCon', con: 'TRUE' }, body: t },
    { pattern: { tag: 'default' }, body: e },
  ],
});
const proj = (rec: string, field: string, e: Expr): Expr => ({
  tag: 'recProj',
  tycon: { tycon: qn(rec), args: [] },
  field,
  record: e,
});
const parties = (e: Expr): Expr => ({ tag: 'cons', type: PARTY, front: [e], tail: { tag: 'nil', type: PARTY } });
const upd = (update: Extract<Expr, { tag: 'update' }>['update']): Expr => ({ tag: 'update', update });

const build = app(val('build'), int(100_000), { tag: 'nil', type: INT });
const holderId = qn('Holder');
const down: TemplateChoice = {
  name: 'Down',
  consuming: true,
  controllers: parties(proj('Holder', 'p', v('this'))),
  argBinder: { name: 'n', type: INT },
  selfBinder: 'self',
  returnType: INT,
  update: ite(
    call('EQUAL', v('n'), int(0)),
    upd({ tag: 'pure', type: INT, expr: int(0) }),
    upd({
      tag: 'block',
      bindings: [
        { binder: { name: 'c', type: INT }, bound: upd({ tag: 'create', template: holderId, expr: v('this') }) },
        {
          binder: { name: 'r', type: INT },
          bound: upd({
            tag: 'exercise',
            template: holderId,
            choice: 'Down',
            cid: v('c'),
            arg: call('SUB_INT64', v('n'), int(1)),
          }),
        },
      ],
      body: upd({ tag: 'pure', type: INT, expr: call('ADD_INT64', v('r'), int(1)) }),
    }),
  ),
};
const mod: Module = {
  name: M,
  flags: {
    forbidPartyLiterals: true,
    dontDivulgeContractIdsInCreateArguments: true,
    dontDiscloseNonConsumingChoicesToObservers: true,
  },
  synonyms: new Map(),
  dataTypes: new Map([
    [
      'Holder',
      {
        name: 'Holder',
        params: [],
        serializable: true,
        cons: {
          tag: 'record',
          fields: [
            { field: 'p', type: PARTY },
            { field: 'o', type: PARTY },
            { field: 'n', type: tb('NUMERIC', { tag: 'nat', value: 10 }) },
          ],
        },
      },
    ],
  ]),
  values: new Map([
    [
      'build',
      {
        name: 'build',
        type: INT,
        expr: lam(
          ['n', 'acc'],
          ite(
            call('EQUAL', v('n'), int(0)),
            v('acc'),
            app(val('build'), call('SUB_INT64', v('n'), int(1)), {
              tag: 'cons',
              type: INT,
              front: [v('n')],
              tail: v('acc'),
            }),
          ),
        ),
      },
    ],
    [
      'countDown',
      {
        name: 'countDown',
        type: INT,
        expr: lam(
          ['n'],
          ite(
            call('EQUAL', v('n'), int(0)),
            int(0),
            call('ADD_INT64', int(1), app(val('countDown'), call('SUB_INT64', v('n'), int(1)))),
          ),
        ),
      },
    ],
  ]),
  templates: new Map([
    [
      'Holder',
      {
        tycon: 'Holder',
        param: 'this',
        precond: { tag: 'builtinCon', con: 'TRUE' },
        signatories: parties(proj('Holder', 'p', v('this'))),
        observers: parties(proj('Holder', 'o', v('this'))),
        choices: new Map([['Down', down]]),
        implements: new Map(),
      },
    ],
  ]),
  exceptions: new Map(),
  interfaces: new Map(),
};
const pkg: Package = {
  id: PKG,
  languageVersion: { major: 2, minor: '1' },
  metadata: { name: 'bench', version: '1.0.0' },
  modules: new Map([[M, mod]]),
  imports: [],
};

function time<T>(f: () => T): [T, number] {
  const t0 = process.hrtime.bigint();
  const r = f();
  return [r, Number(process.hrtime.bigint() - t0) / 1e6];
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function main() {
  const interp = new Interpreter(new CompiledPackages([pkg]));
  const engine = new Engine(new CompiledPackages([pkg]));
  const alice = 'alice::1220aa';
  const ctx = {
    actAs: [alice],
    readAs: [],
    submissionSeed: Buffer.alloc(32, 1),
    participantId: 'bench::1220',
    preparationTime: 1_700_000_000_000_000n,
  };
  const create = {
    kind: 'create' as const,
    templateId: holderId,
    argument: { json: { p: alice, o: 'bob::1220bb', n: '1.5' } },
  };
  const fold: number[] = [];
  const rec: number[] = [];
  const creates: number[] = [];
  const chain: number[] = [];
  let steps = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const [r1, t1] = time(() => {
      const m = interp.machine();
      const r = m
        .start(
          interp.compiler.compile(call('FOLDL', lam(['a', 'x'], call('ADD_INT64', v('a'), v('x'))), int(0), build)),
        )
        .run();
      steps = (m as unknown as { steps: number }).steps;
      return r;
    });
    if (r1.tag !== 'done') throw new Error('fold failed');
    fold.push(t1);
    const [r2, t2] = time(() => interp.evaluate(app(val('countDown'), int(200_000))));
    if (r2.tag !== 'done') throw new Error('recursion failed');
    rec.push(t2);
    const n = 2000;
    const [, t3] = time(() => {
      for (let i = 0; i < n; i++) if (engine.submit([create], ctx).tag !== 'done') throw new Error('create failed');
    });
    creates.push((t3 / n) * 1000);
    const [r4, t4] = time(() =>
      engine.submit(
        [
          {
            kind: 'createAndExercise',
            templateId: holderId,
            createArgument: create.argument,
            choice: 'Down',
            choiceArgument: { json: '2000' },
          },
        ],
        ctx,
      ),
    );
    if (r4.tag !== 'done') throw new Error('chain failed');
    chain.push(t4);
  }
  console.log(`daml-lf bench (${ROUNDS} rounds, medians)`);
  console.log(
    `  FOLDL over a 100,000-element list (built in Daml): ${median(fold).toFixed(1)} ms, ${steps} machine steps (${((median(fold) * 1e6) / steps).toFixed(0)} ns/step)`,
  );
  console.log(`  200,000-deep non-tail recursion: ${median(rec).toFixed(1)} ms`);
  console.log(`  Engine.submit of one create: ${median(creates).toFixed(1)} µs`);
  console.log(
    `  2,000 nested exercises each creating the next contract (4,001 nodes): ${median(chain).toFixed(1)} ms, ${((median(chain) * 1000) / 4001).toFixed(1)} µs/node`,
  );
}

main();
