import type { Expr, Module, Package, QualifiedName, Type, Update } from '@ledgerline/daml-lf';

/**
 * Packages built as ASTs, one of each construct the archive format has (every Type, Expr, Update, CasePattern,
 * literal and definition form), in the LF 2.1 shape (applied types, n-ary binders) or the LF 2.2+ flat shape (TApp,
 * one binder per abstraction).
 */
export const SELF = 'self-package-placeholder';
export const OTHER = 'a'.repeat(64);

const q = (module: string, name: string, packageId = SELF): QualifiedName => ({ packageId, module, name });
const NO_FLAGS = {
  forbidPartyLiterals: true,
  dontDivulgeContractIdsInCreateArguments: true,
  dontDiscloseNonConsumingChoicesToObservers: true,
};

export function samplePackage(minor: '1' | '2' | '3' | 'dev'): Package {
  const flat = minor !== '1';
  const b = (
    builtin: Type extends infer T ? (T extends { tag: 'builtin'; builtin: infer B } ? B : never) : never,
    ...args: Type[]
  ): Type => {
    if (!flat || args.length === 0) return { tag: 'builtin', builtin, args };
    return args.reduce<Type>((lhs, rhs) => ({ tag: 'tapp', lhs, rhs }), { tag: 'builtin', builtin, args: [] });
  };
  const party = b('PARTY');
  const text = b('TEXT');
  const int = b('INT64');
  const list = (t: Type) => b('LIST', t);
  const arrow = (a: Type, r: Type) => b('ARROW', a, r);
  const tRec: Type = { tag: 'con', tycon: q('Main', 'T'), args: [] };
  const cid = b('CONTRACT_ID', tRec);
  const tv = (name: string): Type => ({ tag: 'var', name, args: [] });
  const star = { tag: 'star' } as const;
  const forall: Type = flat
    ? {
        tag: 'forall',
        vars: [{ name: 'a', kind: star }],
        body: {
          tag: 'forall',
          vars: [{ name: 'b', kind: { tag: 'arrow', params: [star], result: star } }],
          body: tv('a'),
        },
      }
    : {
        tag: 'forall',
        vars: [
          { name: 'a', kind: star },
          { name: 'b', kind: { tag: 'arrow', params: [star, { tag: 'nat' }], result: star } },
        ],
        body: tv('a'),
      };
  const box: Type = flat
    ? { tag: 'tapp', lhs: { tag: 'con', tycon: q('Main', 'Box'), args: [] }, rhs: int }
    : { tag: 'con', tycon: q('Main', 'Box'), args: [int] };
  const v = (name: string): Expr => ({ tag: 'var', name });
  const app = (fun: Expr, ...args: Expr[]): Expr =>
    flat ? args.reduce<Expr>((f, a) => ({ tag: 'app', fun: f, args: [a] }), fun) : { tag: 'app', fun, args };
  const lam = (params: Array<[string, Type]>, body: Expr): Expr =>
    flat
      ? params.reduceRight<Expr>((acc, [name, type]) => ({ tag: 'abs', params: [{ name, type }], body: acc }), body)
      : { tag: 'abs', params: params.map(([name, type]) => ({ name, type })), body };
  const lit = (l: Expr & { tag: 'lit' }) => l;
  const tApp = { tycon: q('Main', 'T'), args: [] };
  const upd = (u: Update): Expr => ({ tag: 'update', update: u });
  const iface = q('Main', 'I');
  const loc = { startLine: 3, startCol: 4, endLine: 5, endCol: 6 };

  const exprs: Expr[] = [
    v('x'),
    { tag: 'val', ref: q('Other.Mod', 'helper', OTHER) },
    { tag: 'builtin', fn: 'TRACE' },
    { tag: 'builtin', fn: 'SECP256K1_VALIDATE_KEY' },
    { tag: 'builtinCon', con: 'UNIT' },
    { tag: 'builtinCon', con: 'TRUE' },
    lit({ tag: 'lit', lit: { tag: 'int64', value: -9223372036854775808n } }),
    lit({ tag: 'lit', lit: { tag: 'int64', value: 9223372036854775807n } }),
    lit({ tag: 'lit', lit: { tag: 'numeric', value: '1.0000000000' } }),
    lit({ tag: 'lit', lit: { tag: 'text', value: 'héllo \u{1F600}' } }),
    lit({ tag: 'lit', lit: { tag: 'timestamp', value: -62135596800000000n } }),
    lit({ tag: 'lit', lit: { tag: 'date', value: -719162 } }),
    lit({ tag: 'lit', lit: { tag: 'roundingMode', value: 'HALF_EVEN' } }),
    lit({ tag: 'lit', lit: { tag: 'failureCategory', value: 'INVALID_GIVEN_CURRENT_SYSTEM_STATE_OTHER' } }),
    {
      tag: 'recCon',
      tycon: tApp,
      fields: [
        { field: 'owner', expr: v('p') },
        { field: 'n', expr: v('n') },
      ],
    },
    { tag: 'recProj', tycon: tApp, field: 'owner', record: v('this') },
    { tag: 'recUpd', tycon: tApp, field: 'n', record: v('this'), update: v('n') },
    { tag: 'variantCon', tycon: { tycon: q('Main', 'V'), args: [int] }, variant: 'Left', arg: v('x') },
    { tag: 'enumCon', tycon: q('Main', 'Color'), constructor: 'Red' },
    { tag: 'structCon', fields: [{ field: 'a', expr: v('x') }] },
    { tag: 'structProj', field: 'a', struct: v('s') },
    { tag: 'structUpd', field: 'a', struct: v('s'), update: v('x') },
    app({ tag: 'builtin', fn: 'ADD_INT64' }, v('x'), v('y')),
    { tag: 'tyApp', expr: { tag: 'builtin', fn: 'EQUAL' }, types: [int] },
    lam(
      [
        ['x', int],
        ['y', text],
      ],
      v('x'),
    ),
    { tag: 'tyAbs', params: [{ name: 'a', kind: star }], body: v('x') },
    {
      tag: 'case',
      scrut: v('x'),
      alts: [
        { pattern: { tag: 'variant', con: q('Main', 'V'), variant: 'Left', binder: 'l' }, body: v('l') },
        { pattern: { tag: 'enum', con: q('Main', 'Color'), constructor: 'Red' }, body: v('x') },
        { pattern: { tag: 'builtinCon', con: 'FALSE' }, body: v('x') },
        { pattern: { tag: 'nil' }, body: v('x') },
        { pattern: { tag: 'cons', head: 'h', tail: 't' }, body: v('h') },
        { pattern: { tag: 'none' }, body: v('x') },
        { pattern: { tag: 'some', binder: 's' }, body: v('s') },
        { pattern: { tag: 'default' }, body: v('x') },
      ],
    },
    {
      tag: 'let',
      bindings: [
        { binder: { name: 'y', type: int }, bound: v('x') },
        { binder: { name: 'z', type: int }, bound: v('y') },
      ],
      body: v('z'),
    },
    { tag: 'nil', type: int },
    { tag: 'cons', type: int, front: [v('x'), v('y')], tail: { tag: 'nil', type: int } },
    { tag: 'none', type: int },
    { tag: 'some', type: int, value: v('x') },
    { tag: 'toAny', type: tRec, expr: v('x') },
    { tag: 'fromAny', type: tRec, expr: v('x') },
    { tag: 'typeRep', type: tRec },
    { tag: 'toAnyException', type: { tag: 'con', tycon: q('Main', 'E'), args: [] }, expr: v('x') },
    { tag: 'fromAnyException', type: { tag: 'con', tycon: q('Main', 'E'), args: [] }, expr: v('x') },
    {
      tag: 'throw',
      returnType: int,
      exceptionType: { tag: 'con', tycon: q('Main', 'E'), args: [] },
      exception: v('e'),
    },
    { tag: 'toInterface', iface, template: q('Main', 'T'), expr: v('this') },
    { tag: 'fromInterface', iface, template: q('Main', 'T'), expr: v('i') },
    { tag: 'unsafeFromInterface', iface, template: q('Main', 'T'), contractId: v('cid'), expr: v('i') },
    { tag: 'callInterface', iface, method: 'getOwner', expr: v('i') },
    { tag: 'viewInterface', iface, expr: v('i') },
    { tag: 'signatoryInterface', iface, expr: v('i') },
    { tag: 'observerInterface', iface, expr: v('i') },
    { tag: 'interfaceTemplateTypeRep', iface, expr: v('i') },
    { tag: 'toRequiredInterface', required: q('Main', 'J'), requiring: iface, expr: v('i') },
    { tag: 'fromRequiredInterface', required: q('Main', 'J'), requiring: iface, expr: v('i') },
    {
      tag: 'unsafeFromRequiredInterface',
      required: q('Main', 'J'),
      requiring: iface,
      contractId: v('cid'),
      expr: v('i'),
    },
    { tag: 'choiceController', template: q('Main', 'T'), choice: 'Go', contract: v('this'), choiceArg: v('arg') },
    { tag: 'choiceObserver', template: q('Main', 'T'), choice: 'Go', contract: v('this'), choiceArg: v('arg') },
    { tag: 'located', location: loc, expr: v('x') },
    { tag: 'located', location: { ...loc, module: { packageId: OTHER, module: 'Other.Mod' } }, expr: v('x') },
    upd({ tag: 'pure', type: int, expr: v('x') }),
    upd({ tag: 'block', bindings: [{ binder: { name: 'c', type: cid }, bound: v('u') }], body: v('u2') }),
    upd({ tag: 'create', template: q('Main', 'T'), expr: v('this') }),
    upd({ tag: 'createInterface', iface, expr: v('i') }),
    upd({ tag: 'exercise', template: q('Main', 'T'), choice: 'Go', cid: v('cid'), arg: v('arg') }),
    upd({ tag: 'exerciseInterface', iface, choice: 'IGo', cid: v('cid'), arg: v('arg') }),
    upd({ tag: 'fetch', template: q('Main', 'T'), cid: v('cid') }),
    upd({ tag: 'fetchInterface', iface, cid: v('cid') }),
    upd({ tag: 'getTime' }),
    upd({ tag: 'ledgerTimeLt', expr: v('t') }),
    upd({ tag: 'embedExpr', type: int, body: v('u') }),
    upd({ tag: 'tryCatch', returnType: int, tryExpr: v('u'), binder: 'err', catchExpr: { tag: 'none', type: int } }),
  ];
  if (minor === '3' || minor === 'dev') {
    exprs.push(
      upd({ tag: 'exerciseByKey', template: q('Main', 'T'), choice: 'Go', key: v('k'), arg: v('arg') }),
      upd({ tag: 'fetchByKey', template: q('Main', 'T') }),
      upd({ tag: 'queryNByKey', template: q('Main', 'T') }),
    );
  }
  if (minor === 'dev') {
    exprs.push({ tag: 'experimental', name: 'ANSWER', type: int });
    exprs.push(upd({ tag: 'exerciseInterface', iface, choice: 'IGo', cid: v('cid'), arg: v('arg'), guard: v('g') }));
  }

  const choice = {
    name: 'Go',
    consuming: true,
    controllers: {
      tag: 'cons',
      type: party,
      front: [{ tag: 'recProj', tycon: tApp, field: 'owner', record: v('this') }],
      tail: { tag: 'nil', type: party },
    },
    observers: { tag: 'nil', type: party },
    argBinder: { name: 'arg', type: { tag: 'con', tycon: q('Main', 'Go'), args: [] } },
    returnType: b('UNIT'),
    update: upd({ tag: 'pure', type: b('UNIT'), expr: { tag: 'builtinCon', con: 'UNIT' } }),
    selfBinder: 'self',
    location: loc,
  } as const;
  const mainModule: Module = {
    name: 'Main',
    flags: NO_FLAGS,
    synonyms: new Map([
      ['Syn', { name: 'Syn', params: [{ name: 'a', kind: star }], type: list(tv('a')), location: loc }],
    ]),
    dataTypes: new Map([
      [
        'T',
        {
          name: 'T',
          params: [],
          serializable: true,
          cons: {
            tag: 'record',
            fields: [
              { field: 'owner', type: party },
              { field: 'n', type: int },
            ],
          },
        },
      ],
      [
        'Box',
        {
          name: 'Box',
          params: [{ name: 'a', kind: star }],
          serializable: true,
          cons: { tag: 'record', fields: [{ field: 'x', type: tv('a') }] },
        },
      ],
      [
        'V',
        {
          name: 'V',
          params: [{ name: 'a', kind: star }],
          serializable: true,
          cons: {
            tag: 'variant',
            constructors: [
              { field: 'Left', type: tv('a') },
              { field: 'Right', type: text },
            ],
          },
        },
      ],
      [
        'Color',
        {
          name: 'Color',
          params: [],
          serializable: true,
          cons: { tag: 'enum', constructors: ['Red', 'Green'] },
          location: loc,
        },
      ],
      ['Empty', { name: 'Empty', params: [], serializable: false, cons: { tag: 'enum', constructors: [] } }],
      ['I', { name: 'I', params: [], serializable: false, cons: { tag: 'interface' } }],
      ['Go', { name: 'Go', params: [], serializable: true, cons: { tag: 'record', fields: [] } }],
      [
        'E',
        { name: 'E', params: [], serializable: true, cons: { tag: 'record', fields: [{ field: 'msg', type: text }] } },
      ],
      [
        'Nested.Name',
        { name: 'Nested.Name', params: [], serializable: true, cons: { tag: 'variant', constructors: [] } },
      ],
    ]),
    values: new Map(
      exprs.map((expr, i) => [
        `v${i}`,
        {
          name: `v${i}`,
          type: [
            int,
            forall,
            box,
            arrow(int, text),
            { tag: 'struct', fields: [{ field: 'a', type: int }] },
            { tag: 'syn', tysyn: q('Main', 'Syn'), args: [int] },
            b('NUMERIC', { tag: 'nat', value: 10 }),
          ][i % 7],
          expr,
          ...(i % 3 === 0 ? { location: loc } : {}),
        },
      ]),
    ),
    templates: new Map([
      [
        'T',
        {
          tycon: 'T',
          param: 'this',
          precond: { tag: 'builtinCon', con: 'TRUE' },
          signatories: choice.controllers,
          observers: { tag: 'nil', type: party },
          choices: new Map([['Go', choice]]),
          ...(minor === '3' || minor === 'dev'
            ? {
                key: {
                  type: party,
                  body: { tag: 'recProj', tycon: tApp, field: 'owner', record: v('this') },
                  maintainers: lam([['k', party]], v('k')),
                },
              }
            : {}),
          implements: new Map([
            [
              `${SELF}:Main:I`,
              {
                iface,
                body: {
                  methods: new Map([['getOwner', { tag: 'recProj', tycon: tApp, field: 'owner', record: v('this') }]]),
                  view: { tag: 'builtinCon', con: 'UNIT' },
                },
                location: loc,
              },
            ],
          ]),
          location: loc,
        },
      ],
    ]),
    exceptions: new Map([
      [
        'E',
        {
          name: 'E',
          message: lam([['e', { tag: 'con', tycon: q('Main', 'E'), args: [] }]], {
            tag: 'recProj',
            tycon: { tycon: q('Main', 'E'), args: [] },
            field: 'msg',
            record: v('e'),
          }),
          location: loc,
        },
      ],
    ]),
    interfaces: new Map([
      [
        'I',
        {
          tycon: 'I',
          param: 'this',
          methods: new Map([['getOwner', { name: 'getOwner', type: party, location: loc }]]),
          choices: new Map([['IGo', { ...withoutObservers(choice), name: 'IGo', consuming: false }]]),
          view: b('UNIT'),
          requires: [q('Main', 'J')],
          location: loc,
        },
      ],
    ]),
  } as Module;
  const other: Module = {
    name: 'Other.Sub',
    flags: {
      forbidPartyLiterals: false,
      dontDivulgeContractIdsInCreateArguments: false,
      dontDiscloseNonConsumingChoicesToObservers: false,
    },
    synonyms: new Map(),
    dataTypes: new Map(),
    values: new Map([
      ['Dotted.value', { name: 'Dotted.value', type: int, expr: { tag: 'val', ref: q('Main', 'v0') } }],
    ]),
    templates: new Map(),
    exceptions: new Map(),
    interfaces: new Map(),
  };
  return {
    id: SELF,
    languageVersion: { major: 2, minor },
    metadata: { name: 'sample', version: '1.2.3', ...(minor !== '1' ? { upgradedPackageId: OTHER } : {}) },
    modules: new Map([
      ['Main', mainModule],
      ['Other.Sub', other],
    ]),
    imports: [OTHER],
  };
}

function withoutObservers<T extends { observers?: unknown }>(c: T): Omit<T, 'observers'> {
  const out: Partial<T> = { ...c };
  delete out.observers;
  return out as Omit<T, 'observers'>;
}
