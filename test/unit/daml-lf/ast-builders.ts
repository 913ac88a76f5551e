/**
 * Thin constructors for Daml-LF AST values in tests (until tests write LF text). Each mirrors one AST node.
 */
import type {
  BuiltinFunction,
  BuiltinType,
  CaseAlt,
  CasePattern,
  DataCons,
  DefDataType,
  DefException,
  DefTemplate,
  DefValue,
  Expr,
  Module,
  Package,
  QualifiedName,
  TemplateImplements,
  Type,
  Update,
} from '@ledgerline/daml-lf';

export const PKG = 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90';
export const qn = (module: string, name: string, packageId = PKG): QualifiedName => ({ packageId, module, name });

// types
export const tb = (builtin: BuiltinType, ...args: Type[]): Type => ({ tag: 'builtin', builtin, args });
export const tcon = (id: QualifiedName, ...args: Type[]): Type => ({ tag: 'con', tycon: id, args });
export const tvar = (name: string): Type => ({ tag: 'var', name, args: [] });
export const tnat = (value: number): Type => ({ tag: 'nat', value });
export const T = {
  unit: tb('UNIT'),
  bool: tb('BOOL'),
  int: tb('INT64'),
  text: tb('TEXT'),
  party: tb('PARTY'),
  date: tb('DATE'),
  time: tb('TIMESTAMP'),
  num: (n: number) => tb('NUMERIC', tnat(n)),
  list: (t: Type) => tb('LIST', t),
  opt: (t: Type) => tb('OPTIONAL', t),
  cid: (t: Type) => tb('CONTRACT_ID', t),
  textMap: (t: Type) => tb('TEXTMAP', t),
  genMap: (k: Type, v: Type) => tb('GENMAP', k, v),
  update: (t: Type) => tb('UPDATE', t),
  arrow: (a: Type, b: Type) => tb('ARROW', a, b),
};

// expressions
export const v = (name: string): Expr => ({ tag: 'var', name });
export const val = (module: string, name: string): Expr => ({ tag: 'val', ref: qn(module, name) });
export const b = (fn: BuiltinFunction): Expr => ({ tag: 'builtin', fn });
export const int = (n: bigint | number): Expr => ({ tag: 'lit', lit: { tag: 'int64', value: BigInt(n) } });
export const num = (s: string): Expr => ({ tag: 'lit', lit: { tag: 'numeric', value: s } });
export const str = (s: string): Expr => ({ tag: 'lit', lit: { tag: 'text', value: s } });
export const ts = (us: bigint): Expr => ({ tag: 'lit', lit: { tag: 'timestamp', value: us } });
export const date = (days: number): Expr => ({ tag: 'lit', lit: { tag: 'date', value: days } });
export const TRUE: Expr = { tag: 'builtinCon', con: 'TRUE' };
export const FALSE: Expr = { tag: 'builtinCon', con: 'FALSE' };
export const UNIT: Expr = { tag: 'builtinCon', con: 'UNIT' };
export const app = (fun: Expr, ...args: Expr[]): Expr => ({ tag: 'app', fun, args });
/** A builtin applied to arguments. */
export const call = (fn: BuiltinFunction, ...args: Expr[]): Expr => app(b(fn), ...args);
export const tyApp = (expr: Expr, ...types: Type[]): Expr => ({ tag: 'tyApp', expr, types });
export const lam = (params: [string, Type][], body: Expr): Expr => ({
  tag: 'abs',
  params: params.map(([name, type]) => ({ name, type })),
  body,
});
export const let_ = (bindings: [string, Type, Expr][], body: Expr): Expr => ({
  tag: 'let',
  bindings: bindings.map(([name, type, bound]) => ({ binder: { name, type }, bound })),
  body,
});
export const nil = (t: Type = T.int): Expr => ({ tag: 'nil', type: t });
export const cons = (front: Expr[], tail: Expr, t: Type = T.int): Expr => ({ tag: 'cons', type: t, front, tail });
export const list = (xs: Expr[], t: Type = T.int): Expr => (xs.length ? cons(xs, nil(t), t) : nil(t));
export const none = (t: Type = T.int): Expr => ({ tag: 'none', type: t });
export const some = (value: Expr, t: Type = T.int): Expr => ({ tag: 'some', type: t, value });
export const rec = (id: QualifiedName, fields: [string, Expr][]): Expr => ({
  tag: 'recCon',
  tycon: { tycon: id, args: [] },
  fields: fields.map(([field, expr]) => ({ field, expr })),
});
export const proj = (id: QualifiedName, field: string, record: Expr): Expr => ({
  tag: 'recProj',
  tycon: { tycon: id, args: [] },
  field,
  record,
});
export const variant = (id: QualifiedName, con: string, arg: Expr): Expr => ({
  tag: 'variantCon',
  tycon: { tycon: id, args: [] },
  variant: con,
  arg,
});
export const enumCon = (id: QualifiedName, constructor: string): Expr => ({ tag: 'enumCon', tycon: id, constructor });
export const alt = (pattern: CasePattern, body: Expr): CaseAlt => ({ pattern, body });
export const case_ = (scrut: Expr, alts: CaseAlt[]): Expr => ({ tag: 'case', scrut, alts });
export const P = {
  default: { tag: 'default' } as CasePattern,
  nil: { tag: 'nil' } as CasePattern,
  cons: (head: string, tail: string): CasePattern => ({ tag: 'cons', head, tail }),
  none: { tag: 'none' } as CasePattern,
  some: (binder: string): CasePattern => ({ tag: 'some', binder }),
  true: { tag: 'builtinCon', con: 'TRUE' } as CasePattern,
  false: { tag: 'builtinCon', con: 'FALSE' } as CasePattern,
  variant: (con: QualifiedName, variant: string, binder: string): CasePattern => ({
    tag: 'variant',
    con,
    variant,
    binder,
  }),
};
export const ite = (c: Expr, t: Expr, e: Expr): Expr => case_(c, [alt(P.true, t), alt(P.default, e)]);
export const upd = (update: Update): Expr => ({ tag: 'update', update });
export const pure_ = (expr: Expr, type: Type = T.unit): Expr => upd({ tag: 'pure', type, expr });
export const block = (bindings: [string, Type, Expr][], body: Expr): Expr =>
  upd({ tag: 'block', bindings: bindings.map(([name, type, bound]) => ({ binder: { name, type }, bound })), body });
export const toAnyExc = (type: Type, expr: Expr): Expr => ({ tag: 'toAnyException', type, expr });
export const throw_ = (exceptionType: Type, exception: Expr, returnType: Type = T.unit): Expr => ({
  tag: 'throw',
  returnType,
  exceptionType,
  exception,
});

// definitions
export function module(name: string, parts: Partial<Omit<Module, 'name' | 'flags'>> = {}): Module {
  return {
    name,
    flags: {
      forbidPartyLiterals: true,
      dontDivulgeContractIdsInCreateArguments: true,
      dontDiscloseNonConsumingChoicesToObservers: true,
    },
    synonyms: parts.synonyms ?? new Map(),
    dataTypes: parts.dataTypes ?? new Map(),
    values: parts.values ?? new Map(),
    templates: parts.templates ?? new Map(),
    exceptions: parts.exceptions ?? new Map(),
    interfaces: parts.interfaces ?? new Map(),
  };
}
export const record = (name: string, fields: [string, Type][], serializable = true): DefDataType => ({
  name,
  params: [],
  serializable,
  cons: { tag: 'record', fields: fields.map(([field, type]) => ({ field, type })) },
});
export const dataType = (name: string, cons: DataCons, params: string[] = []): DefDataType => ({
  name,
  params: params.map((p) => ({ name: p, kind: { tag: 'star' } })),
  serializable: true,
  cons,
});
export const valueDef = (name: string, type: Type, expr: Expr): DefValue => ({ name, type, expr });
export const exceptionDef = (name: string, message: Expr): DefException => ({ name, message });
export function template(
  tycon: string,
  parts: {
    param?: string;
    precond?: Expr;
    signatories: Expr;
    observers?: Expr;
    implements?: Map<string, TemplateImplements>;
  },
): DefTemplate {
  return {
    tycon,
    param: parts.param ?? 'this',
    precond: parts.precond ?? TRUE,
    signatories: parts.signatories,
    observers: parts.observers ?? nil(T.party),
    choices: new Map(),
    implements: parts.implements ?? new Map(),
  };
}
export function pkg(modules: Module[], id = PKG, imports: string[] = []): Package {
  return {
    id,
    languageVersion: { major: 2, minor: '1' },
    metadata: { name: 'test-package', version: '1.0.0' },
    modules: new Map(modules.map((m) => [m.name, m])),
    imports,
  };
}
export const byName = <X extends { name: string } | { tycon: string }>(...xs: X[]): Map<string, X> =>
  new Map(xs.map((x) => ['name' in x ? x.name : x.tycon, x]));
