/**
 * Package validation at upload, as Canton's `daml-lf/validation` runs it (`Validation.scala`: per package, per module,
 * `Typing.checkModule` then `Serializability.checkModule`): the well-formedness of every definition — kinds, arities,
 * duplicate names, references that resolve, templates and exceptions over monomorphic records, interface views,
 * requirements and instances — and the serializability of what a ledger stores or exchanges. Messages are Canton's
 * (`ValidationError.scala`, `LookupError.scala`). Pure: packages in, the first error out.
 *
 * Not checked (yet): the types of expressions (the bodies of values, choices, precondition, signatories, …), collisions
 * of names (`Collision.scala`) and recursion of modules and synonyms (`Recursion.scala`).
 */
import type {
  DataCons,
  DefDataType,
  DefInterface,
  DefTemplate,
  DefTypeSyn,
  FieldWithType,
  Kind,
  Module,
  Package,
  PackageId,
  QualifiedName,
  TemplateChoice,
  Type,
  TypeConId,
  TypeVarWithKind,
} from '../language/ast';
import { prettyKind, prettyType } from './pretty';

/** A package the validation refuses: Canton's `ValidationError` (its class name and its `pretty` text). */
export class PackageValidationError extends Error {
  constructor(
    /** Canton's error class, e.g. `EExpectedSerializableType`. */
    readonly kind: string,
    /** Where: `` or ` in data type pkg:Mod:T` (Canton's `Context.pretty`). */
    readonly context: string,
    detail: string,
  ) {
    super(`validation error${context}: ${detail}`);
    this.name = 'PackageValidationError';
  }
}

const STAR: Kind = { tag: 'star' };
const NAT: Kind = { tag: 'nat' };
const arrow = (param: Kind, result: Kind): Kind => ({ tag: 'arrow', params: [param], result });

/** `p1 -> p2 -> r` as its first parameter and the rest. */
function splitArrow(k: Kind & { tag: 'arrow' }): [Kind, Kind] {
  return [
    k.params[0],
    k.params.length === 1 ? k.result : { tag: 'arrow', params: k.params.slice(1), result: k.result },
  ];
}

function kindEquals(a: Kind, b: Kind): boolean {
  if (a.tag !== 'arrow' || b.tag !== 'arrow') return a.tag === b.tag;
  const [ap, ar] = splitArrow(a);
  const [bp, br] = splitArrow(b);
  return kindEquals(ap, bp) && kindEquals(ar, br);
}

const id = (q: QualifiedName) => `${q.packageId}:${q.module}:${q.name}`;

function kindOfBuiltin(b: string): Kind {
  switch (b) {
    case 'NUMERIC':
      return arrow(NAT, STAR);
    case 'LIST':
    case 'UPDATE':
    case 'CONTRACT_ID':
    case 'OPTIONAL':
    case 'TEXTMAP':
      return arrow(STAR, STAR);
    case 'ARROW':
    case 'GENMAP':
      return arrow(STAR, arrow(STAR, STAR));
    default:
      return STAR;
  }
}

/** Looks definitions up across the packages being validated and those they depend on (`PackageInterface`). */
class Packages {
  constructor(private readonly lookup: (id: PackageId) => Package | undefined) {}

  private module(ctx: string, q: QualifiedName, what: string): Module {
    const pkg = this.lookup(q.packageId);
    if (!pkg)
      throw new PackageValidationError(
        'EUnknownDefinition',
        ctx,
        `Couldn't find package ${q.packageId} while looking for ${what} ${id(q)}`,
      );
    const mod = pkg.modules.get(q.module);
    if (!mod)
      throw new PackageValidationError(
        'EUnknownDefinition',
        ctx,
        `unknown module ${q.packageId}:${q.module} while looking for ${what} ${id(q)}`,
      );
    return mod;
  }

  private notFound(ctx: string, q: QualifiedName, what: string): never {
    throw new PackageValidationError('EUnknownDefinition', ctx, `unknown ${what} ${id(q)}`);
  }

  dataType(ctx: string, q: TypeConId): DefDataType {
    return this.module(ctx, q, 'data type').dataTypes.get(q.name) ?? this.notFound(ctx, q, 'data type');
  }

  synonym(ctx: string, q: QualifiedName): DefTypeSyn {
    return this.module(ctx, q, 'type synonym').synonyms.get(q.name) ?? this.notFound(ctx, q, 'type synonym');
  }

  interface(ctx: string, q: TypeConId): DefInterface {
    return this.module(ctx, q, 'interface').interfaces.get(q.name) ?? this.notFound(ctx, q, 'interface');
  }

  template(q: TypeConId): DefTemplate | undefined {
    return this.lookup(q.packageId)?.modules.get(q.module)?.templates.get(q.name);
  }
}

function checkUnique(names: Iterable<string>, fail: (name: string) => never): void {
  const seen = new Set<string>();
  for (const n of names) {
    if (seen.has(n)) fail(n);
    seen.add(n);
  }
}

/** The head of a type application and its arguments, `tapp` and the n-ary forms alike. */
function spine(t: Type): { head: Type; args: Type[] } {
  const args: Type[] = [];
  let cur = t;
  for (;;) {
    if (cur.tag === 'tapp') {
      args.unshift(cur.rhs);
      cur = cur.lhs;
    } else if (
      (cur.tag === 'var' || cur.tag === 'con' || cur.tag === 'syn' || cur.tag === 'builtin') &&
      cur.args.length
    ) {
      args.unshift(...cur.args);
      cur = { ...cur, args: [] } as Type;
    } else return { head: cur, args };
  }
}

// ------------------------------------------------------------------------------------------------------------ kinds

class KindEnv {
  constructor(
    readonly pkgs: Packages,
    readonly ctx: string,
    readonly vars: ReadonlyMap<string, Kind> = new Map(),
  ) {}

  with(vars: readonly TypeVarWithKind[]): KindEnv {
    const m = new Map(this.vars);
    for (const v of vars) m.set(v.name, v.kind);
    return new KindEnv(this.pkgs, this.ctx, m);
  }

  fail(kind: string, detail: string): never {
    throw new PackageValidationError(kind, this.ctx, detail);
  }

  checkKind(k: Kind): void {
    if (k.tag !== 'arrow') return;
    const [param, result] = splitArrow(k);
    if (result.tag === 'nat') this.fail('ENatKindRightOfArrow', `invalid kind ${prettyKind(k)}`);
    this.checkKind(param);
    this.checkKind(result);
  }

  checkType(t: Type, kind: Kind): void {
    const found = this.kindOf(t);
    if (!kindEquals(found, kind))
      this.fail(
        'EKindMismatch',
        `kind mismatch:\n * expected kind: ${prettyKind(kind)}\n * found Kind: ${prettyKind(found)}`,
      );
  }

  kindOf(t0: Type): Kind {
    const { head, args } = spine(t0);
    if (head.tag === 'syn') {
      const syn = this.pkgs.synonym(this.ctx, head.tysyn);
      if (syn.params.length !== args.length)
        this.fail(
          'ETypeSynAppWrongArity',
          `wrong arity in type synonym application: ${head.tysyn.module}:${head.tysyn.name} ${args.map(prettyType).join(' ')}`,
        );
      args.forEach((a, i) => this.checkType(a, syn.params[i].kind));
      return STAR;
    }
    let k: Kind;
    switch (head.tag) {
      case 'var': {
        const v = this.vars.get(head.name);
        if (!v) this.fail('EUnknownTypeVar', `unknown type variable: ${head.name}`);
        k = v;
        break;
      }
      case 'nat':
        k = NAT;
        break;
      case 'con': {
        const dt = this.pkgs.dataType(this.ctx, head.tycon);
        k = dt.params.reduceRight<Kind>((acc, p) => arrow(p.kind, acc), STAR);
        break;
      }
      case 'builtin':
        k = kindOfBuiltin(head.builtin);
        break;
      case 'forall':
        for (const v of head.vars) this.checkKind(v.kind);
        this.with(head.vars).checkType(head.body, STAR);
        k = STAR;
        break;
      case 'struct':
        this.checkFields(head.fields);
        k = STAR;
        break;
      default:
        throw new Error('unreachable');
    }
    for (const a of args) {
      if (k.tag !== 'arrow')
        this.fail('EExpectedHigherKind', `expected higher kinded type, but found: ${prettyKind(STAR)}`);
      const [param, result] = splitArrow(k);
      this.checkType(a, param);
      k = result;
    }
    return k;
  }

  checkFields(fields: readonly FieldWithType[]): void {
    checkUnique(
      fields.map((f) => f.field),
      (n) => this.fail('EDuplicateField', `duplicate field: ${n}`),
    );
    for (const f of fields) this.checkType(f.type, STAR);
  }
}

// ---------------------------------------------------------------------------------------------- serializability

type Requirement =
  | 'template argument'
  | 'choice argument'
  | 'exception argument'
  | 'choice result'
  | 'view'
  | 'contract key'
  | 'serializable data type';

const BUILTIN_UNSERIALIZABLE: Record<string, string> = {
  NUMERIC: 'unapplied Numeric',
  LIST: 'unapplied List',
  OPTIONAL: 'unapplied Option',
  TEXTMAP: 'unapplied TextMap',
  GENMAP: 'unapplied GenMap',
  UPDATE: 'Update',
  CONTRACT_ID: 'ContractId not applied to a template type',
  ARROW: 'function type',
  ANY: 'Any',
  TYPE_REP: 'TypeRep',
  ROUNDING_MODE: 'RoundingMode',
  BIGNUMERIC: 'BigNumeric',
  FAILURE_CATEGORY: 'FailureCategory',
};

class Serializability {
  constructor(
    private readonly pkgs: Packages,
    private readonly ctx: string,
    private readonly requirement: Requirement,
    private readonly typeToSerialize: Type,
    private readonly vars: ReadonlySet<string> = new Set(),
  ) {}

  unserializable(reason: string): never {
    throw new PackageValidationError(
      'EExpectedSerializableType',
      this.ctx,
      `expected serializable type:\n * reason: ${reason}\n * found: ${prettyType(this.typeToSerialize)}\n * problem: ${this.requirement}\n     `,
    );
  }

  withParams(params: readonly TypeVarWithKind[]): Serializability {
    const vars = new Set(this.vars);
    for (const p of params) {
      if (p.kind.tag !== 'star') this.unserializable(`higher-kinded type variable ${p.name} : ${prettyKind(p.kind)}`);
      vars.add(p.name);
    }
    return new Serializability(this.pkgs, this.ctx, this.requirement, this.typeToSerialize, vars);
  }

  check(t: Type = this.typeToSerialize): void {
    const { head, args } = spine(t);
    if (head.tag === 'builtin' && args.length > 0) {
      const b = head.builtin;
      if (b === 'CONTRACT_ID') return;
      if (b === 'NUMERIC' && args.length === 1 && args[0].tag === 'nat') return;
      if ((b === 'LIST' || b === 'OPTIONAL' || b === 'TEXTMAP') && args.length === 1) return this.check(args[0]);
      if (b === 'GENMAP' && args.length === 2) {
        this.check(args[0]);
        return this.check(args[1]);
      }
    }
    switch (head.tag) {
      case 'var':
        if (!this.vars.has(head.name)) this.unserializable(`free type variable ${head.name}`);
        break;
      case 'nat':
        this.unserializable('Nat');
        break;
      case 'syn':
        this.unserializable(`type synonym ${head.tysyn.module}:${head.tysyn.name}`);
        break;
      case 'con': {
        const dt = this.pkgs.dataType(this.ctx, head.tycon);
        if (!dt.serializable) this.unserializable(`unserializable data type ${head.tycon.module}:${head.tycon.name}`);
        break;
      }
      case 'builtin': {
        const reason = BUILTIN_UNSERIALIZABLE[head.builtin];
        if (reason) this.unserializable(reason);
        break;
      }
      case 'forall':
        this.unserializable('higher-ranked type');
        break;
      case 'struct':
        this.unserializable('structural record');
        break;
    }
    for (const a of args) this.check(a);
  }
}

// ------------------------------------------------------------------------------------------------------- modules

const con = (tycon: TypeConId): Type => ({ tag: 'con', tycon, args: [] });

function checkDataType(env: KindEnv, tycon: TypeConId, dt: DefDataType): void {
  for (const p of dt.params) env.checkKind(p.kind);
  checkUnique(
    dt.params.map((p) => p.name),
    (n) => env.fail('EDuplicateTypeParam', `duplicate type parameter: ${n}`),
  );
  const inner = env.with(dt.params);
  const cons: DataCons = dt.cons;
  switch (cons.tag) {
    case 'record':
      inner.checkFields(cons.fields);
      break;
    case 'variant':
      checkUnique(
        cons.constructors.map((c) => c.field),
        (n) => env.fail('EDuplicateVariantCon', `duplicate variant constructor: ${n}`),
      );
      for (const c of cons.constructors) inner.checkType(c.type, STAR);
      break;
    case 'enum':
      if (dt.params.length) env.fail('EIllegalHigherEnumType', 'illegal higher order enum type');
      checkUnique(cons.constructors, (n) => env.fail('EDuplicateEnumCon', `duplicate enum constructor: ${n}`));
      break;
    case 'interface':
      if (dt.params.length) env.fail('EIllegalHigherInterfaceType', 'illegal higher interface type');
      env.pkgs.interface(env.ctx, tycon);
      break;
  }
}

function checkChoiceTypes(
  env: KindEnv,
  owner: TypeConId,
  choice: TemplateChoice,
  what: 'template' | 'interface',
): void {
  const ctx = ` in choice ${choice.name} in ${what} ${id(owner)}`;
  const e = new KindEnv(env.pkgs, ctx, env.vars);
  e.checkType(choice.argBinder.type, STAR);
  e.checkType(choice.returnType, STAR);
}

function checkTemplate(env: KindEnv, tplId: TypeConId, tpl: DefTemplate): void {
  const dt = env.pkgs.dataType(env.ctx, tplId);
  if (dt.params.length || dt.cons.tag !== 'record')
    env.fail(
      'EExpectedTemplatableType',
      `expected monomorphic record type in template definition, but found: ${tplId.module}:${tplId.name}`,
    );
  for (const c of tpl.choices.values()) checkChoiceTypes(env, tplId, c, 'template');
  if (tpl.key) env.checkType(tpl.key.type, STAR);
  for (const impl of tpl.implements.values()) {
    const ctx = ` in interface instance ${id(impl.iface)} for ${id(tplId)}`;
    const iface = env.pkgs.interface(ctx, impl.iface);
    for (const required of iface.requires)
      if (!tpl.implements.has(id(required)))
        throw new PackageValidationError(
          'EMissingRequiredInterfaceInstance',
          ctx,
          `Missing required interface instance ${id(required)} for ${id(tplId)}, required by interface ${id(impl.iface)}`,
        );
    for (const m of iface.methods.keys())
      if (!impl.body.methods.has(m))
        throw new PackageValidationError(
          'EMissingMethodInInterfaceInstance',
          ctx,
          `Interface instance lacks an implementation for method '${m}'.`,
        );
    for (const m of impl.body.methods.keys())
      if (!iface.methods.has(m))
        throw new PackageValidationError(
          'EUnknownMethodInInterfaceInstance',
          ctx,
          `Tried to implement method ${m} but interface ${id(impl.iface)} does not have a method with that name.`,
        );
  }
}

function checkInterface(env: KindEnv, ifaceId: TypeConId, iface: DefInterface): void {
  const requires = new Set(iface.requires.map(id));
  if (requires.has(id(ifaceId)))
    env.fail(
      'ECircularInterfaceRequires',
      `Circular interface requirement is not allowed: interface ${id(ifaceId)} requires itself.`,
    );
  for (const required of iface.requires)
    for (const rr of env.pkgs.interface(env.ctx, required).requires)
      if (!requires.has(id(rr)))
        env.fail(
          'ENotClosedInterfaceRequires',
          `Interface ${id(ifaceId)} is missing requirements ${id(rr)} required by ${id(required)}`,
        );
  for (const m of iface.methods.values()) env.checkType(m.type, STAR);
  for (const c of iface.choices.values()) checkChoiceTypes(env, ifaceId, c, 'interface');
  const view = iface.view;
  const { head, args } = spine(view);
  if (head.tag === 'con') {
    if (args.length)
      env.fail(
        'EViewTypeHasVars',
        `expected monomorphic record type in view type, but found a type constructor with type variables: ${prettyType(view)}`,
      );
    const dt = env.pkgs.dataType(env.ctx, head.tycon);
    if (dt.params.length)
      env.fail(
        'EViewTypeHasVars',
        `expected monomorphic record type in view type, but found a type constructor with type variables: ${prettyType(view)}`,
      );
    if (dt.cons.tag !== 'record') {
      const what = { variant: 'a variant type', enum: 'an enum type', interface: 'a interface type' }[dt.cons.tag];
      env.fail(
        'EViewTypeConNotRecord',
        `expected monomorphic record type in view type, but found ${what} instead: ${prettyType(view)}`,
      );
    }
  } else {
    const what =
      head.tag === 'var'
        ? 'a type variable'
        : head.tag === 'syn'
          ? 'a type synonym'
          : head.tag === 'builtin'
            ? 'a built-in type'
            : head.tag === 'forall'
              ? 'a forall-quantified type'
              : head.tag === 'struct'
                ? 'a structural record'
                : 'a type-level natural number';
    env.fail(
      'EViewTypeHeadNotCon',
      `expected monomorphic record type in view type, but found ${what} instead: ${prettyType(view)}`,
    );
  }
}

function checkModuleTyping(pkgs: Packages, pkgId: PackageId, mod: Module): void {
  const q = (name: string): TypeConId => ({ packageId: pkgId, module: mod.name, name });
  for (const [name, dt] of mod.dataTypes) checkDataType(new KindEnv(pkgs, ` in data type ${id(q(name))}`), q(name), dt);
  for (const [name, v] of mod.values) new KindEnv(pkgs, ` in value ${id(q(name))}`).checkType(v.type, STAR);
  for (const [name, syn] of mod.synonyms) {
    // Canton names a synonym's context a template (Typing.checkModule).
    const env = new KindEnv(pkgs, ` in template ${id(q(name))}`);
    for (const p of syn.params) env.checkKind(p.kind);
    checkUnique(
      syn.params.map((p) => p.name),
      (n) => env.fail('EDuplicateTypeParam', `duplicate type parameter: ${n}`),
    );
    env.with(syn.params).checkType(syn.type, STAR);
  }
  for (const [name, tpl] of mod.templates)
    checkTemplate(new KindEnv(pkgs, ` in template ${id(q(name))}`), q(name), tpl);
  for (const name of mod.exceptions.keys()) {
    const env = new KindEnv(pkgs, ` in exception ${id(q(name))}`);
    const dt = pkgs.dataType(env.ctx, q(name));
    if (dt.params.length || dt.cons.tag !== 'record')
      env.fail(
        'EExpectedExceptionableType',
        `expected monomorphic record type in exception definition, but found: ${mod.name}:${name}`,
      );
  }
  for (const [name, iface] of mod.interfaces)
    checkInterface(new KindEnv(pkgs, ` in interface ${id(q(name))}`), q(name), iface);
}

function checkModuleSerializability(pkgs: Packages, pkgId: PackageId, mod: Module): void {
  const q = (name: string): TypeConId => ({ packageId: pkgId, module: mod.name, name });
  for (const [name, dt] of mod.dataTypes) {
    if (!dt.serializable) continue;
    const s = new Serializability(pkgs, ` in data type ${id(q(name))}`, 'serializable data type', con(q(name)));
    const env = s.withParams(dt.params);
    const cons = dt.cons;
    const fail = (reason: string) => s.unserializable(reason);
    switch (cons.tag) {
      case 'variant':
        if (!cons.constructors.length) fail('variant type without constructors');
        for (const c of cons.constructors) env.check(c.type);
        break;
      case 'enum':
        if (!cons.constructors.length) fail('variant type without constructors');
        break;
      case 'record':
        for (const f of cons.fields) env.check(f.type);
        break;
      case 'interface':
        fail('Interface');
    }
  }
  for (const [name, tpl] of mod.templates) {
    const ctx = ` in template ${id(q(name))}`;
    new Serializability(pkgs, ctx, 'template argument', con(q(name))).check();
    for (const c of tpl.choices.values()) {
      new Serializability(pkgs, ctx, 'choice argument', c.argBinder.type).check();
      new Serializability(pkgs, ctx, 'choice result', c.returnType).check();
    }
    if (tpl.key) new Serializability(pkgs, ctx, 'contract key', tpl.key.type).check();
  }
  for (const name of mod.exceptions.keys())
    new Serializability(pkgs, ` in exception ${id(q(name))}`, 'exception argument', con(q(name))).check();
  for (const [name, iface] of mod.interfaces) {
    const ctx = ` in interface ${id(q(name))}`;
    for (const c of iface.choices.values()) {
      new Serializability(pkgs, ctx, 'choice argument', c.argBinder.type).check();
      new Serializability(pkgs, ctx, 'choice result', c.returnType).check();
    }
    new Serializability(pkgs, ctx, 'view', iface.view).check();
  }
}

/**
 * Validates `packages` against themselves and `dependency(id)` (the packages they import). Throws the first
 * PackageValidationError, in Canton's order: package by package, module by module, typing then serializability.
 */
export function validatePackages(
  packages: readonly Package[],
  dependency: (id: PackageId) => Package | undefined = () => undefined,
): void {
  const byId = new Map(packages.map((p) => [p.id, p]));
  const pkgs = new Packages((pid) => byId.get(pid) ?? dependency(pid));
  for (const pkg of packages)
    for (const mod of pkg.modules.values()) {
      checkModuleTyping(pkgs, pkg.id, mod);
      checkModuleSerializability(pkgs, pkg.id, mod);
    }
}
