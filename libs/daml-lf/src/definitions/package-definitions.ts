import type {
  DataCons,
  DefDataType,
  DefInterface,
  DefTemplate,
  Expr,
  Package,
  PackageId,
  QualifiedName,
  TemplateChoice,
  Type,
} from '../language/ast';

/**
 * What a package holds, in a form a person reads: per module its templates (fields with types, key, the fields the
 * signatories and observers are read from, choices with argument and result types), interfaces (view, methods, choices)
 * and data types. Types are written as Daml writes them (`Optional Party`, `[Text]`, `ContractId Mod:T`); a type of
 * another package is qualified with its package id. Each template and choice carries an `example`: a JSON value of its
 * argument in Canton's JSON encoding with typed placeholders (`"<Party>"`, `"<Text>"`, `"0"` …), ready to edit.
 */
export interface PackageDefinitions {
  packageId: string;
  name: string;
  version: string;
  languageVersion: string;
  modules: ModuleDefinitions[];
}

export interface ModuleDefinitions {
  name: string;
  templates: TemplateDefinition[];
  interfaces: InterfaceDefinition[];
  dataTypes: DataTypeDefinition[];
}

export interface FieldDefinition {
  name: string;
  type: string;
}

export interface ChoiceDefinition {
  name: string;
  consuming: boolean;
  argumentType: string;
  /** The argument record's fields (empty when the argument is not a record of a known package). */
  argumentFields: FieldDefinition[];
  resultType: string;
  /** A JSON `choiceArgument` with typed placeholders. */
  example: unknown;
}

export interface TemplateDefinition {
  /** `packageId:Module:Name`, as commands name it (`#packageName:Module:Name` names it by package name). */
  templateId: string;
  name: string;
  fields: FieldDefinition[];
  /** Fields of the contract the signatories are computed from (as far as the package's own code shows them). */
  signatoryFields: string[];
  observerFields: string[];
  key: { type: string } | null;
  choices: ChoiceDefinition[];
  /** Interface ids (`packageId:Module:Name`) the template implements. */
  implements: string[];
  /** A JSON `createArguments` with typed placeholders. */
  example: unknown;
}

export interface InterfaceDefinition {
  interfaceId: string;
  name: string;
  viewType: string;
  viewFields: FieldDefinition[];
  methods: FieldDefinition[];
  choices: ChoiceDefinition[];
  requires: string[];
}

export type DataTypeDefinition =
  | { name: string; params: string[]; kind: 'record'; fields: FieldDefinition[] }
  | { name: string; params: string[]; kind: 'variant'; constructors: FieldDefinition[] }
  | { name: string; params: string[]; kind: 'enum'; constructors: string[] };

/** The packages a rendering may look into (data types of imported packages): by id, undefined when not at hand. */
export type PackageLookup = (id: PackageId) => Package | undefined;

/** Summary of a package for lists. */
export interface PackageSummary {
  packageId: string;
  name: string;
  version: string;
  languageVersion: string;
  templates: number;
  interfaces: number;
}

export function packageSummary(pkg: Package): PackageSummary {
  let templates = 0;
  let interfaces = 0;
  for (const m of pkg.modules.values()) {
    templates += m.templates.size;
    interfaces += m.interfaces.size;
  }
  return {
    packageId: pkg.id,
    name: pkg.metadata.name,
    version: pkg.metadata.version,
    languageVersion: `${pkg.languageVersion.major}.${pkg.languageVersion.minor}`,
    templates,
    interfaces,
  };
}

export function packageDefinitions(pkg: Package, lookup: PackageLookup): PackageDefinitions {
  const get: PackageLookup = (id) => (id === pkg.id ? pkg : lookup(id));
  const r = new Renderer(pkg, get);
  const modules: ModuleDefinitions[] = [];
  for (const m of pkg.modules.values()) {
    const templates = [...m.templates.values()].map((t) => r.template(m.name, t));
    const interfaces = [...m.interfaces.values()].map((i) => r.iface(m.name, i));
    const dataTypes: DataTypeDefinition[] = [];
    for (const dt of m.dataTypes.values()) {
      const d = r.dataType(dt);
      if (d) dataTypes.push(d);
    }
    if (templates.length + interfaces.length + dataTypes.length > 0)
      modules.push({ name: m.name, templates, interfaces, dataTypes });
  }
  return { ...pick(packageSummary(pkg)), modules };
}

function pick(s: PackageSummary) {
  return { packageId: s.packageId, name: s.name, version: s.version, languageVersion: s.languageVersion };
}

/** Most record levels an example expands before it writes `{}` (recursive types). */
const EXAMPLE_DEPTH = 6;

class Renderer {
  constructor(
    private readonly pkg: Package,
    private readonly get: PackageLookup,
  ) {}

  template(module: string, t: DefTemplate): TemplateDefinition {
    const id: QualifiedName = { packageId: this.pkg.id, module, name: t.tycon };
    const record = this.recordFields(id, []);
    return {
      templateId: `${this.pkg.id}:${module}:${t.tycon}`,
      name: t.tycon,
      fields: record ?? [],
      signatoryFields: this.fieldsRead(t.signatories, id),
      observerFields: this.fieldsRead(t.observers, id),
      key: t.key ? { type: this.type(t.key.type) } : null,
      choices: [...t.choices.values()].map((c) => this.choice(c)),
      implements: [...t.implements.keys()],
      example: this.example({ tag: 'con', tycon: id, args: [] }, EXAMPLE_DEPTH),
    };
  }

  iface(module: string, i: DefInterface): InterfaceDefinition {
    const view = normalize(i.view);
    return {
      interfaceId: `${this.pkg.id}:${module}:${i.tycon}`,
      name: i.tycon,
      viewType: this.type(i.view),
      viewFields: view.tag === 'con' ? (this.recordFields(view.tycon, view.args) ?? []) : [],
      methods: [...i.methods.values()].map((m) => ({ name: m.name, type: this.type(m.type) })),
      choices: [...i.choices.values()].map((c) => this.choice(c)),
      requires: i.requires.map((q) => `${q.packageId}:${q.module}:${q.name}`),
    };
  }

  dataType(dt: DefDataType): DataTypeDefinition | undefined {
    const params = dt.params.map((p) => p.name);
    const cons: DataCons = dt.cons;
    switch (cons.tag) {
      case 'record':
        return { name: dt.name, params, kind: 'record', fields: cons.fields.map((f) => this.field(f.field, f.type)) };
      case 'variant':
        return {
          name: dt.name,
          params,
          kind: 'variant',
          constructors: cons.constructors.map((f) => this.field(f.field, f.type)),
        };
      case 'enum':
        return { name: dt.name, params, kind: 'enum', constructors: [...cons.constructors] };
      case 'interface':
        return undefined;
    }
  }

  private choice(c: TemplateChoice): ChoiceDefinition {
    const arg = normalize(c.argBinder.type);
    return {
      name: c.name,
      consuming: c.consuming,
      argumentType: this.type(c.argBinder.type),
      argumentFields: arg.tag === 'con' ? (this.recordFields(arg.tycon, arg.args) ?? []) : [],
      resultType: this.type(c.returnType),
      example: this.example(c.argBinder.type, EXAMPLE_DEPTH),
    };
  }

  private field(name: string, t: Type): FieldDefinition {
    return { name, type: this.type(t) };
  }

  private dataTypeOf(q: QualifiedName): DefDataType | undefined {
    return this.get(q.packageId)?.modules.get(q.module)?.dataTypes.get(q.name);
  }

  /** The fields of record type `q` applied to `args` (type parameters substituted), or undefined if not a known record. */
  private recordFields(q: QualifiedName, args: readonly Type[]): FieldDefinition[] | undefined {
    const dt = this.dataTypeOf(q);
    if (dt?.cons.tag !== 'record') return undefined;
    const subst = substitution(dt, args);
    return dt.cons.fields.map((f) => this.field(f.field, substitute(f.type, subst)));
  }

  /** A type as Daml source writes it. */
  type(t: Type, nested = false): string {
    const n = normalize(t);
    const wrap = (s: string, args: readonly Type[]) =>
      args.length === 0 ? s : paren(`${s} ${args.map((a) => this.type(a, true)).join(' ')}`, nested);
    switch (n.tag) {
      case 'var':
        return wrap(n.name, n.args);
      case 'con':
        return wrap(this.name(n.tycon), n.args);
      case 'syn':
        return wrap(this.name(n.tysyn), n.args);
      case 'nat':
        return String(n.value);
      case 'struct':
        return `<${n.fields.map((f) => `${f.field}: ${this.type(f.type)}`).join(', ')}>`;
      case 'forall':
        return paren(`forall ${n.vars.map((v) => v.name).join(' ')}. ${this.type(n.body)}`, nested);
      case 'tapp':
        return paren(`${this.type(n.lhs, true)} ${this.type(n.rhs, true)}`, nested);
      case 'builtin': {
        const a = n.args;
        if (n.builtin === 'LIST' && a.length === 1) return `[${this.type(a[0])}]`;
        if (n.builtin === 'UNIT' && a.length === 0) return '()';
        if (n.builtin === 'ARROW' && a.length === 2)
          return paren(`${this.type(a[0], true)} -> ${this.type(a[1])}`, nested);
        return wrap(BUILTIN_NAMES[n.builtin] ?? n.builtin, a);
      }
    }
  }

  private name(q: QualifiedName): string {
    return q.packageId === this.pkg.id ? `${q.module}:${q.name}` : `${q.packageId}:${q.module}:${q.name}`;
  }

  /** A JSON value of type `t` in Canton's JSON encoding, with placeholders where a value must be chosen. */
  example(t: Type, depth: number): unknown {
    const n = normalize(t);
    if (n.tag === 'builtin') {
      switch (n.builtin) {
        case 'UNIT':
          return {};
        case 'BOOL':
          return false;
        case 'INT64':
          return '0';
        case 'NUMERIC':
        case 'BIGNUMERIC':
          return '0.0';
        case 'TEXT':
          return '<Text>';
        case 'PARTY':
          return '<Party>';
        case 'DATE':
          return '1970-01-01';
        case 'TIMESTAMP':
          return '1970-01-01T00:00:00Z';
        case 'CONTRACT_ID':
          return `<${this.type(n)}>`;
        case 'OPTIONAL':
          return null;
        case 'LIST':
        case 'GENMAP':
          return [];
        case 'TEXTMAP':
          return {};
        default:
          return `<${this.type(n)}>`;
      }
    }
    if (n.tag !== 'con') return `<${this.type(n)}>`;
    const dt = this.dataTypeOf(n.tycon);
    if (!dt || depth <= 0) return dt?.cons.tag === 'record' ? {} : `<${this.type(n)}>`;
    const subst = substitution(dt, n.args);
    switch (dt.cons.tag) {
      case 'record':
        return Object.fromEntries(
          dt.cons.fields.map((f) => [f.field, this.example(substitute(f.type, subst), depth - 1)]),
        );
      case 'variant': {
        const c = dt.cons.constructors[0];
        return c ? { tag: c.field, value: this.example(substitute(c.type, subst), depth - 1) } : {};
      }
      case 'enum':
        return dt.cons.constructors[0] ?? '';
      case 'interface':
        return `<${this.type(n)}>`;
    }
  }

  /**
   * The fields of template `id` that expression `e` reads (record projections on the template's type), following the
   * package's own top-level values it calls (damlc puts a template's signatories in such a value).
   */
  fieldsRead(e: Expr, id: QualifiedName): string[] {
    const found = new Set<string>();
    const seenValues = new Set<string>();
    const stack: unknown[] = [e];
    while (stack.length > 0) {
      const x = stack.pop();
      if (x === null || typeof x !== 'object') continue;
      if (Array.isArray(x)) {
        for (const y of x) stack.push(y);
        continue;
      }
      if (x instanceof Map) {
        for (const y of x.values()) stack.push(y);
        continue;
      }
      const node = x as { tag?: string };
      if (node.tag === 'recProj') {
        const p = x as Extract<Expr, { tag: 'recProj' }>;
        if (sameName(p.tycon.tycon, id)) found.add(p.field);
      } else if (node.tag === 'val') {
        const ref = (x as Extract<Expr, { tag: 'val' }>).ref;
        const key = `${ref.module}:${ref.name}`;
        if (ref.packageId === this.pkg.id && !seenValues.has(key)) {
          seenValues.add(key);
          const def = this.pkg.modules.get(ref.module)?.values.get(ref.name);
          if (def) stack.push(def.expr);
        }
        continue;
      }
      // Types hold no expressions: skip them (they are shared and can be large).
      for (const [k, v] of Object.entries(x)) if (k !== 'type' && k !== 'types' && k !== 'tycon') stack.push(v);
    }
    // In the record's field order.
    const fields = this.recordFields(id, []) ?? [];
    return fields.map((f) => f.name).filter((f) => found.has(f));
  }
}

const BUILTIN_NAMES: Partial<Record<string, string>> = {
  BOOL: 'Bool',
  INT64: 'Int',
  DATE: 'Date',
  TIMESTAMP: 'Time',
  NUMERIC: 'Numeric',
  PARTY: 'Party',
  TEXT: 'Text',
  CONTRACT_ID: 'ContractId',
  OPTIONAL: 'Optional',
  GENMAP: 'Map',
  TEXTMAP: 'TextMap',
  ANY: 'Any',
  ANY_EXCEPTION: 'AnyException',
  TYPE_REP: 'TypeRep',
  UPDATE: 'Update',
  FAILURE_CATEGORY: 'FailureCategory',
  BIGNUMERIC: 'BigNumeric',
  ROUNDING_MODE: 'RoundingMode',
  LIST: 'List',
  ARROW: '(->)',
  UNIT: '()',
};

function paren(s: string, nested: boolean): string {
  return nested ? `(${s})` : s;
}

function sameName(a: QualifiedName, b: QualifiedName): boolean {
  return a.packageId === b.packageId && a.module === b.module && a.name === b.name;
}

/** Binary applications (`tapp`) folded into their head's argument list. */
function normalize(t: Type): Type {
  if (t.tag !== 'tapp') return t;
  const args: Type[] = [];
  let head: Type = t;
  while (head.tag === 'tapp') {
    args.unshift(head.rhs);
    head = head.lhs;
  }
  switch (head.tag) {
    case 'var':
    case 'con':
    case 'syn':
    case 'builtin':
      return { ...head, args: [...head.args, ...args] };
    default:
      return t;
  }
}

function substitution(dt: DefDataType, args: readonly Type[]): Map<string, Type> {
  const m = new Map<string, Type>();
  dt.params.forEach((p, i) => {
    if (args[i]) m.set(p.name, args[i]);
  });
  return m;
}

function substitute(t: Type, s: Map<string, Type>): Type {
  if (s.size === 0) return t;
  const n = normalize(t);
  switch (n.tag) {
    case 'var': {
      const v = s.get(n.name);
      const args = n.args.map((a) => substitute(a, s));
      if (!v) return { ...n, args };
      if (args.length === 0) return v;
      return args.reduce<Type>((lhs, rhs) => ({ tag: 'tapp', lhs, rhs }), v);
    }
    case 'con':
    case 'syn':
    case 'builtin':
      return { ...n, args: n.args.map((a) => substitute(a, s)) };
    case 'struct':
      return { ...n, fields: n.fields.map((f) => ({ field: f.field, type: substitute(f.type, s) })) };
    default:
      return n;
  }
}
