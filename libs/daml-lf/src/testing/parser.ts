/**
 * Daml-LF text → the AST, the syntax of Canton's test parser (`daml-lf/parser/…/testing/parser/`: TypeParser,
 * KindParser, ExprParser, ModParser). The forms are shaped for the target LF version the way Canton's encoder
 * (`daml-lf/encoder/…/EncodeV2.scala`) writes them: for LF 2.1 type applications are gathered on their head
 * (`con`/`var`/`builtin` with arguments), foralls, kind arrows, applications, type applications, abstractions and type
 * abstractions are n-ary; from LF 2.2 (the flat archive) they are binary (`tapp`, one argument, one binder).
 *
 * References without a package id name the package itself (`options.selfPackageId`); the encoder writes them as
 * `self_package_id`. `imports` are the other package ids mentioned (declared from LF 2.2, collected for 2.1). Modules
 * get Canton's encoder's feature flags (all true); an interface also defines its data type (`DataCons` interface).
 */
import type {
  BuiltinFunction,
  BuiltinLit,
  BuiltinType,
  CaseAlt,
  CasePattern,
  DefDataType,
  DefException,
  DefInterface,
  DefTemplate,
  DefTypeSyn,
  DefValue,
  Expr,
  FieldWithExpr,
  FieldWithType,
  InterfaceMethod,
  Kind,
  Module,
  Package,
  QualifiedName,
  TemplateChoice,
  TemplateImplements,
  Type,
  TypeConApp,
  TypeVarWithKind,
  Update,
  Binding,
  RoundingMode,
  FailureCategory,
} from '../language/ast';
import { qualifiedNameToString } from '../language/ast';
import { BUILTIN_FUNCTIONS } from '../archive/wire';
import { lex, LfTextError, type Token } from './lexer';

export { LfTextError } from './lexer';

export interface ParseOptions {
  /** LF minor version: '1', '2', '3' or 'dev' (default '2'). */
  readonly minor?: string;
  /** The id unqualified references name (default `-self-`, as Canton's encoder tool uses). */
  readonly selfPackageId?: string;
  /** Package metadata when the text has no `metadata ( 'name' : 'version' )` header. */
  readonly name?: string;
  readonly version?: string;
}

const BUILTIN_TYPE_NAMES: Record<string, BuiltinType> = {
  Int64: 'INT64',
  Numeric: 'NUMERIC',
  Text: 'TEXT',
  Timestamp: 'TIMESTAMP',
  Party: 'PARTY',
  Bool: 'BOOL',
  Unit: 'UNIT',
  Option: 'OPTIONAL',
  List: 'LIST',
  Update: 'UPDATE',
  Date: 'DATE',
  ContractId: 'CONTRACT_ID',
  Arrow: 'ARROW',
  TextMap: 'TEXTMAP',
  GenMap: 'GENMAP',
  Any: 'ANY',
  TypeRep: 'TYPE_REP',
  BigNumeric: 'BIGNUMERIC',
  RoundingMode: 'ROUNDING_MODE',
  AnyException: 'ANY_EXCEPTION',
  FailureCategory: 'FAILURE_CATEGORY',
};

const ROUNDING: Record<string, RoundingMode> = {
  ROUNDING_UP: 'UP',
  ROUNDING_DOWN: 'DOWN',
  ROUNDING_CEILING: 'CEILING',
  ROUNDING_FLOOR: 'FLOOR',
  ROUNDING_HALF_UP: 'HALF_UP',
  ROUNDING_HALF_DOWN: 'HALF_DOWN',
  ROUNDING_HALF_EVEN: 'HALF_EVEN',
  ROUNDING_UNNECESSARY: 'UNNECESSARY',
};

const FAILURE: Record<string, FailureCategory> = {
  INVALID_INDEPENDENT_OF_SYSTEM_STATE: 'INVALID_INDEPENDENT_OF_SYSTEM_STATE',
  INVALID_GIVEN_CURRENT_SYSTEM_STATE_OTHER: 'INVALID_GIVEN_CURRENT_SYSTEM_STATE_OTHER',
};

const STAR: Kind = { tag: 'star' };
const FLAGS = {
  forbidPartyLiterals: true,
  dontDivulgeContractIdsInCreateArguments: true,
  dontDiscloseNonConsumingChoicesToObservers: true,
};

/** A backtrackable failure (an alternative did not match). */
class NoMatch extends Error {}

/** Parses a whole package: an optional `metadata ( 'name' : 'version' )` header, then modules. */
export function parsePackage(src: string, options: ParseOptions = {}): Package {
  return new LfParser(src, options).package();
}

/** Parses one type (for tests and tools). */
export function parseType(src: string, options: ParseOptions = {}): Type {
  const p = new LfParser(src, options);
  return p.whole(() => p.typ());
}

/** Parses one expression (for tests and tools). */
export function parseExpr(src: string, options: ParseOptions = {}): Expr {
  const p = new LfParser(src, options);
  return p.whole(() => p.expr());
}

class LfParser {
  private readonly toks: Token[];
  private pos = 0;
  private readonly flat: boolean;
  private readonly minor: string;
  private readonly self: string;
  private readonly mentioned = new Set<string>();
  /** The furthest token an alternative failed at, and what it expected there (for the error message). */
  private furthest = 0;
  private expected = new Set<string>();

  constructor(
    src: string,
    private readonly options: ParseOptions,
  ) {
    this.toks = lex(src);
    this.minor = options.minor ?? '2';
    if (!['1', '2', '3', 'dev'].includes(this.minor))
      throw new LfTextError(`unknown LF minor version 2.${this.minor}`, 1, 1);
    this.flat = this.minor !== '1';
    this.self = options.selfPackageId ?? '-self-';
  }

  // ------------------------------------------------------------------------------------------------------ plumbing

  private get tok(): Token {
    return this.toks[this.pos];
  }

  private fail(what: string): never {
    if (this.pos > this.furthest) {
      this.furthest = this.pos;
      this.expected = new Set([what]);
    } else if (this.pos === this.furthest) this.expected.add(what);
    throw new NoMatch(what);
  }

  private error(): LfTextError {
    const t = this.toks[this.furthest];
    const found = t.kind === 'eof' ? 'end of input' : `${JSON.stringify(t.value)}`;
    return new LfTextError(`expected ${[...this.expected].join(' or ')} but found ${found}`, t.line, t.col);
  }

  whole<T>(p: () => T): T {
    try {
      const v = p();
      if (this.tok.kind !== 'eof') this.fail('end of input');
      return v;
    } catch (e) {
      if (e instanceof NoMatch) throw this.error();
      throw e;
    }
  }

  private isPunct(v: string): boolean {
    return this.tok.kind === 'punct' && this.tok.value === v;
  }

  private isId(v?: string): boolean {
    return this.tok.kind === 'id' && (v === undefined || this.tok.value === v);
  }

  private isKeyword(v: string): boolean {
    return this.tok.kind === 'keyword' && this.tok.value === v;
  }

  private punct(v: string): void {
    if (!this.isPunct(v)) this.fail(`'${v}'`);
    this.pos++;
  }

  private keyword(v: string): void {
    if (!this.isKeyword(v)) this.fail(`'${v}'`);
    this.pos++;
  }

  private word(v: string): void {
    if (!this.isId(v)) this.fail(`'${v}'`);
    this.pos++;
  }

  private id(): string {
    if (this.tok.kind !== 'id') this.fail('an identifier');
    return this.toks[this.pos++].value;
  }

  private attempt<T>(p: () => T): T | undefined {
    const save = this.pos;
    try {
      return p();
    } catch (e) {
      if (!(e instanceof NoMatch)) throw e;
      this.pos = save;
      return undefined;
    }
  }

  private sepBy<T>(p: () => T, sep: string, atLeastOne = false): T[] {
    const first = atLeastOne ? p() : this.attempt(p);
    if (first === undefined) return [];
    const out = [first];
    while (this.isPunct(sep)) {
      const save = this.pos;
      this.pos++;
      const next = this.attempt(p);
      if (next === undefined) {
        this.pos = save;
        break;
      }
      out.push(next);
    }
    return out;
  }

  private many<T>(p: () => T): T[] {
    const out: T[] = [];
    for (let v = this.attempt(p); v !== undefined; v = this.attempt(p)) out.push(v);
    return out;
  }

  private dottedName(): string {
    return this.sepBy(() => this.id(), '.', true).join('.');
  }

  private fullIdentifier(): QualifiedName {
    let packageId = this.self;
    if (this.tok.kind === 'simpleString') {
      packageId = this.toks[this.pos++].value;
      this.punct(':');
    }
    const module = this.dottedName();
    this.punct(':');
    const name = this.dottedName();
    if (packageId !== this.self) this.mentioned.add(packageId);
    return { packageId, module, name };
  }

  // --------------------------------------------------------------------------------------------------------- kinds

  private kind0(): Kind {
    if (this.isPunct('*')) {
      this.pos++;
      return STAR;
    }
    if (this.isId('nat')) {
      this.pos++;
      return { tag: 'nat' };
    }
    this.punct('(');
    const k = this.kind();
    this.punct(')');
    return k;
  }

  private kind(): Kind {
    const ks = this.sepBy(() => this.kind0(), '->', true);
    return ks.reduceRight((result, param) => {
      if (!this.flat && result.tag === 'arrow')
        return { tag: 'arrow', params: [param, ...result.params], result: result.result };
      return { tag: 'arrow', params: [param], result };
    });
  }

  // --------------------------------------------------------------------------------------------------------- types

  private typeBinder(): TypeVarWithKind {
    if (this.isPunct('(')) {
      this.pos++;
      const name = this.id();
      this.punct(':');
      const kind = this.kind();
      this.punct(')');
      return { name, kind };
    }
    return { name: this.id(), kind: STAR };
  }

  private forall(vars: TypeVarWithKind[], body: Type): Type {
    if (this.flat) return vars.reduceRight<Type>((acc, v) => ({ tag: 'forall', vars: [v], body: acc }), body);
    if (body.tag === 'forall') return { tag: 'forall', vars: [...vars, ...body.vars], body: body.body };
    return { tag: 'forall', vars, body };
  }

  /** `head arg`, shaped for the version. */
  private tapp(head: Type, arg: Type): Type {
    if (this.flat) return { tag: 'tapp', lhs: head, rhs: arg };
    switch (head.tag) {
      case 'var':
      case 'con':
      case 'builtin':
        return { ...head, args: [...head.args, arg] };
      default:
        throw new LfTextError(
          `a ${head.tag} type cannot be applied in Daml-LF 2.${this.minor}`,
          this.tok.line,
          this.tok.col,
        );
    }
  }

  typ0(): Type {
    const t = this.tok;
    if (this.isPunct('(')) {
      this.pos++;
      const ty = this.typ();
      this.punct(')');
      return ty;
    }
    if (t.kind === 'number') {
      this.pos++;
      const n = Number(t.value);
      if (!Number.isInteger(n) || n < 0 || n > 37)
        throw new LfTextError(`TNat must be between 0 and 37, found ${t.value}`, t.line, t.col);
      return { tag: 'nat', value: n };
    }
    if (this.isKeyword('forall')) {
      this.pos++;
      const vars: TypeVarWithKind[] = [this.typeBinder(), ...this.many(() => this.typeBinder())];
      this.punct('.');
      return this.forall(vars, this.typ());
    }
    if (this.isPunct('<')) {
      this.pos++;
      const fields = this.sepBy(
        () => {
          const field = this.id();
          this.punct(':');
          return { field, type: this.typ() };
        },
        ',',
        true,
      );
      this.punct('>');
      return { tag: 'struct', fields };
    }
    if (this.isPunct('||')) {
      this.pos++;
      const tysyn = this.fullIdentifier();
      const args = this.many(() => this.typ0());
      this.punct('||');
      return { tag: 'syn', tysyn, args };
    }
    if (
      t.kind === 'id' &&
      BUILTIN_TYPE_NAMES[t.value] &&
      !(this.toks[this.pos + 1]?.kind === 'punct' && this.toks[this.pos + 1].value === ':')
    ) {
      this.pos++;
      return { tag: 'builtin', builtin: BUILTIN_TYPE_NAMES[t.value], args: [] };
    }
    const con = this.attempt(() => this.fullIdentifier());
    if (con) return { tag: 'con', tycon: con, args: [] };
    if (t.kind === 'id') {
      this.pos++;
      return { tag: 'var', name: t.value, args: [] };
    }
    return this.fail('a type');
  }

  private typ1(): Type {
    const [head, ...args] = [this.typ0(), ...this.many(() => this.typ0())];
    return args.reduce((acc, a) => this.tapp(acc, a), head);
  }

  typ(): Type {
    const ts = this.sepBy(() => this.typ1(), '->', true);
    return ts.reduceRight((result, param) =>
      this.tapp(this.tapp({ tag: 'builtin', builtin: 'ARROW', args: [] }, param), result),
    );
  }

  private argTyp(): Type {
    this.punct('@');
    return this.typ0();
  }

  // --------------------------------------------------------------------------------------------------- expressions

  private literal(): BuiltinLit | undefined {
    const t = this.tok;
    switch (t.kind) {
      case 'number':
        this.pos++;
        return {
          tag: 'int64',
          value: BigInt.asIntN(64, BigInt(t.value)) === BigInt(t.value) ? BigInt(t.value) : this.fail('an Int64'),
        };
      case 'numeric':
        this.pos++;
        return { tag: 'numeric', value: t.value };
      case 'text':
        this.pos++;
        return { tag: 'text', value: t.value };
      case 'timestamp':
        this.pos++;
        return { tag: 'timestamp', value: timestampMicros(t) };
      case 'date':
        this.pos++;
        return { tag: 'date', value: dateDays(t) };
      case 'id':
        if (ROUNDING[t.value]) {
          this.pos++;
          return { tag: 'roundingMode', value: ROUNDING[t.value] };
        }
        if (FAILURE[t.value]) {
          this.pos++;
          return { tag: 'failureCategory', value: FAILURE[t.value] };
        }
        return undefined;
      default:
        return undefined;
    }
  }

  private fieldInit(): FieldWithExpr {
    const field = this.id();
    this.punct('=');
    return { field, expr: this.expr() };
  }

  /** Expressions that start with a full identifier: record construction/projection/update, variant/enum, value. */
  private identifierExpr(): Expr {
    const tycon = this.fullIdentifier();
    // record forms: Id @T… { … }
    const save = this.pos;
    const args = this.many(() => this.argTyp());
    if (this.isPunct('{')) {
      this.pos++;
      const c: TypeConApp = { tycon, args };
      if (this.isPunct('}')) {
        this.pos++;
        return { tag: 'recCon', tycon: c, fields: [] };
      }
      if (this.tok.kind === 'id' && this.toks[this.pos + 1].kind === 'punct' && this.toks[this.pos + 1].value === '}') {
        const field = this.id();
        this.punct('}');
        return { tag: 'recProj', tycon: c, field, record: this.expr0() };
      }
      if (this.tok.kind === 'id' && this.toks[this.pos + 1].kind === 'punct' && this.toks[this.pos + 1].value === '=') {
        const fields = this.sepBy(() => this.fieldInit(), ',', true);
        this.punct('}');
        return { tag: 'recCon', tycon: c, fields };
      }
      const record = this.expr();
      this.keyword('with');
      const f = this.fieldInit();
      this.punct('}');
      return { tag: 'recUpd', tycon: c, field: f.field, record, update: f.expr };
    }
    this.pos = save;
    if (this.isPunct(':')) {
      this.pos++;
      const con = this.id();
      const targs = this.many(() => this.argTyp());
      const arg = this.attempt(() => this.expr0());
      if (arg !== undefined) return { tag: 'variantCon', tycon: { tycon, args: targs }, variant: con, arg };
      if (targs.length > 0)
        throw new LfTextError('enum type does not take type parameters', this.tok.line, this.tok.col);
      return { tag: 'enumCon', tycon, constructor: con };
    }
    return { tag: 'val', ref: tycon };
  }

  expr0(): Expr {
    const t = this.tok;
    if (t.kind === 'id' || t.kind === 'simpleString') {
      const viaId = this.attempt(() => this.identifierExpr());
      if (viaId) return viaId;
    }
    const lit = this.literal();
    if (lit) return { tag: 'lit', lit };
    if (t.kind === 'id' && (t.value === 'True' || t.value === 'False')) {
      this.pos++;
      return { tag: 'builtinCon', con: t.value === 'True' ? 'TRUE' : 'FALSE' };
    }
    if (this.isPunct('(') && this.toks[this.pos + 1].kind === 'punct' && this.toks[this.pos + 1].value === ')') {
      this.pos += 2;
      return { tag: 'builtinCon', con: 'UNIT' };
    }
    if (t.kind === 'id') {
      const u = this.update();
      if (u) return { tag: 'update', update: u };
    }
    if (t.kind === 'keyword') return this.keywordExpr(t.value);
    if (this.isPunct('<')) {
      this.pos++;
      const con = this.attempt(() => {
        const fields = this.sepBy(() => this.fieldInit(), ',');
        this.punct('>');
        return { tag: 'structCon', fields } as Expr;
      });
      if (con) return con;
      const struct = this.expr();
      this.keyword('with');
      const f = this.fieldInit();
      this.punct('>');
      return { tag: 'structUpd', field: f.field, struct, update: f.expr };
    }
    if (this.isPunct('(')) {
      this.pos++;
      const e = this.expr();
      this.punct(')');
      if (this.isPunct('.')) {
        this.pos++;
        return { tag: 'structProj', field: this.id(), struct: e };
      }
      return e;
    }
    if (this.isPunct('\\')) {
      this.pos++;
      const binders = [this.varBinder(), ...this.many(() => this.varBinder())];
      this.punct('->');
      const body = this.expr();
      if (this.flat) return binders.reduceRight<Expr>((acc, b) => ({ tag: 'abs', params: [b], body: acc }), body);
      if (body.tag === 'abs') return { tag: 'abs', params: [...binders, ...body.params], body: body.body };
      return { tag: 'abs', params: binders, body };
    }
    if (this.isPunct('/\\')) {
      this.pos++;
      const binders = [this.typeBinder(), ...this.many(() => this.typeBinder())];
      this.punct('.');
      const body = this.expr();
      if (this.flat) return binders.reduceRight<Expr>((acc, b) => ({ tag: 'tyAbs', params: [b], body: acc }), body);
      if (body.tag === 'tyAbs') return { tag: 'tyAbs', params: [...binders, ...body.params], body: body.body };
      return { tag: 'tyAbs', params: binders, body };
    }
    if (t.kind === 'id' && t.value in BUILTIN_FUNCTIONS.byName) {
      this.pos++;
      return { tag: 'builtin', fn: t.value as BuiltinFunction };
    }
    if (this.isId('experimental')) {
      this.pos++;
      const name = this.id();
      return { tag: 'experimental', name, type: this.typ() };
    }
    if (t.kind === 'id') {
      this.pos++;
      return { tag: 'var', name: t.value };
    }
    return this.fail('an expression');
  }

  private varBinder(): { name: string; type: Type } {
    this.punct('(');
    const name = this.id();
    this.punct(':');
    const type = this.typ();
    this.punct(')');
    return { name, type };
  }

  private ifaceAndTemplate(): [QualifiedName, QualifiedName] {
    this.punct('@');
    const a = this.fullIdentifier();
    this.punct('@');
    return [a, this.fullIdentifier()];
  }

  private atIdentifier(): QualifiedName {
    this.punct('@');
    return this.fullIdentifier();
  }

  private keywordExpr(k: string): Expr {
    this.pos++;
    switch (k) {
      case 'Nil':
        return { tag: 'nil', type: this.argTyp() };
      case 'Cons': {
        const type = this.argTyp();
        this.punct('[');
        const front = this.sepBy(() => this.expr(), ',');
        this.punct(']');
        return { tag: 'cons', type, front, tail: this.expr0() };
      }
      case 'None':
        return { tag: 'none', type: this.argTyp() };
      case 'Some': {
        const type = this.argTyp();
        return { tag: 'some', type, value: this.expr0() };
      }
      case 'let': {
        const b = this.binding('=');
        this.keyword('in');
        return { tag: 'let', bindings: [b], body: this.expr() };
      }
      case 'to_any':
      case 'from_any':
      case 'to_any_exception':
      case 'from_any_exception': {
        const type = this.argTyp();
        const tag = (
          {
            to_any: 'toAny',
            from_any: 'fromAny',
            to_any_exception: 'toAnyException',
            from_any_exception: 'fromAnyException',
          } as const
        )[k];
        return { tag, type, expr: this.expr0() };
      }
      case 'type_rep':
        return { tag: 'typeRep', type: this.argTyp() };
      case 'throw': {
        const returnType = this.argTyp();
        const exceptionType = this.argTyp();
        return { tag: 'throw', returnType, exceptionType, exception: this.expr0() };
      }
      case 'to_interface':
      case 'from_interface': {
        const [iface, template] = this.ifaceAndTemplate();
        return { tag: k === 'to_interface' ? 'toInterface' : 'fromInterface', iface, template, expr: this.expr0() };
      }
      case 'unsafe_from_interface': {
        const [iface, template] = this.ifaceAndTemplate();
        const contractId = this.expr0();
        return { tag: 'unsafeFromInterface', iface, template, contractId, expr: this.expr0() };
      }
      case 'to_required_interface':
      case 'from_required_interface': {
        const [required, requiring] = this.ifaceAndTemplate();
        return {
          tag: k === 'to_required_interface' ? 'toRequiredInterface' : 'fromRequiredInterface',
          required,
          requiring,
          expr: this.expr0(),
        };
      }
      case 'unsafe_from_required_interface': {
        const [required, requiring] = this.ifaceAndTemplate();
        const contractId = this.expr0();
        return { tag: 'unsafeFromRequiredInterface', required, requiring, contractId, expr: this.expr0() };
      }
      case 'call_method': {
        const iface = this.atIdentifier();
        const method = this.id();
        return { tag: 'callInterface', iface, method, expr: this.expr0() };
      }
      case 'interface_template_type_rep':
      case 'signatory_interface':
      case 'observer_interface':
      case 'view_interface': {
        const iface = this.atIdentifier();
        const tag = (
          {
            interface_template_type_rep: 'interfaceTemplateTypeRep',
            signatory_interface: 'signatoryInterface',
            observer_interface: 'observerInterface',
            view_interface: 'viewInterface',
          } as const
        )[k];
        return { tag, iface, expr: this.expr0() };
      }
      case 'choice_controller':
      case 'choice_observer': {
        const template = this.atIdentifier();
        const choice = this.id();
        const contract = this.expr0();
        return {
          tag: k === 'choice_controller' ? 'choiceController' : 'choiceObserver',
          template,
          choice,
          contract,
          choiceArg: this.expr0(),
        };
      }
      case 'case': {
        const scrut = this.expr();
        this.keyword('of');
        const alts = this.sepBy(() => this.alternative(), '|');
        return { tag: 'case', scrut, alts };
      }
      default:
        this.pos--;
        return this.fail('an expression');
    }
  }

  private pattern(): CasePattern {
    const t = this.tok;
    if (this.isId('_')) {
      this.pos++;
      return { tag: 'default' };
    }
    if (this.isId('True') || this.isId('False')) {
      this.pos++;
      return { tag: 'builtinCon', con: t.value === 'True' ? 'TRUE' : 'FALSE' };
    }
    if (this.isPunct('(')) {
      this.pos++;
      this.punct(')');
      return { tag: 'builtinCon', con: 'UNIT' };
    }
    if (this.isKeyword('Nil')) {
      this.pos++;
      return { tag: 'nil' };
    }
    if (this.isKeyword('Cons')) {
      this.pos++;
      const head = this.id();
      return { tag: 'cons', head, tail: this.id() };
    }
    if (this.isKeyword('None')) {
      this.pos++;
      return { tag: 'none' };
    }
    if (this.isKeyword('Some')) {
      this.pos++;
      return { tag: 'some', binder: this.id() };
    }
    const con = this.fullIdentifier();
    this.punct(':');
    const variant = this.id();
    if (this.tok.kind === 'id') return { tag: 'variant', con, variant, binder: this.id() };
    return { tag: 'enum', con, constructor: variant };
  }

  private alternative(): CaseAlt {
    const pattern = this.pattern();
    this.punct('->');
    return { pattern, body: this.expr() };
  }

  private binding(sep: string): Binding {
    const name = this.id();
    this.punct(':');
    const type = this.typ();
    this.punct(sep);
    return { binder: { name: name === '_' ? '' : name, type }, bound: this.expr() };
  }

  private update(): Update | undefined {
    const t = this.tok;
    const start = this.pos;
    this.pos++;
    switch (t.value) {
      case 'upure': {
        const type = this.argTyp();
        return { tag: 'pure', type, expr: this.expr0() };
      }
      case 'ubind': {
        const bindings = this.sepBy(() => this.binding('<-'), ';', true);
        this.keyword('in');
        return { tag: 'block', bindings, body: this.expr() };
      }
      case 'create':
        return { tag: 'create', template: this.atIdentifier(), expr: this.expr0() };
      case 'create_by_interface':
        return { tag: 'createInterface', iface: this.atIdentifier(), expr: this.expr0() };
      case 'fetch_template':
        return { tag: 'fetch', template: this.atIdentifier(), cid: this.expr0() };
      case 'fetch_interface':
        return { tag: 'fetchInterface', iface: this.atIdentifier(), cid: this.expr0() };
      case 'exercise': {
        const template = this.atIdentifier();
        const choice = this.id();
        const cid = this.expr0();
        return { tag: 'exercise', template, choice, cid, arg: this.expr0() };
      }
      case 'exercise_interface':
      case 'exercise_interface_with_guard': {
        const iface = this.atIdentifier();
        const choice = this.id();
        const cid = this.expr0();
        const arg = this.expr0();
        if (t.value === 'exercise_interface') return { tag: 'exerciseInterface', iface, choice, cid, arg };
        return { tag: 'exerciseInterface', iface, choice, cid, arg, guard: this.expr0() };
      }
      case 'exercise_by_key': {
        const template = this.atIdentifier();
        const choice = this.id();
        const key = this.expr0();
        return { tag: 'exerciseByKey', template, choice, key, arg: this.expr0() };
      }
      case 'fetch_by_key':
        return { tag: 'fetchByKey', template: this.atIdentifier() };
      case 'query_n_by_key':
        return { tag: 'queryNByKey', template: this.atIdentifier() };
      case 'uget_time':
        return { tag: 'getTime' };
      case 'ledger_time_lt':
        return { tag: 'ledgerTimeLt', expr: this.expr0() };
      case 'uembed_expr': {
        const type = this.argTyp();
        return { tag: 'embedExpr', type, body: this.expr0() };
      }
      case 'try': {
        const returnType = this.argTyp();
        const tryExpr = this.expr0();
        this.keyword('catch');
        const binder = this.id();
        this.punct('->');
        return { tag: 'tryCatch', returnType, tryExpr, binder, catchExpr: this.expr() };
      }
      default:
        this.pos = start;
        return undefined;
    }
  }

  /** One application argument: `@type` or an expression. */
  private appArg(): { type: Type } | { expr: Expr } {
    if (this.isPunct('@')) return { type: this.argTyp() };
    return { expr: this.expr0() };
  }

  expr(): Expr {
    if (this.isKeyword('loc')) {
      this.pos++;
      this.punct('(');
      const module = this.dottedName();
      this.punct(',');
      this.id();
      const ints: number[] = [];
      for (let i = 0; i < 4; i++) {
        this.punct(',');
        if (this.tok.kind !== 'number') this.fail('a number');
        ints.push(Number(this.toks[this.pos++].value));
      }
      this.punct(')');
      const expr = this.expr0();
      return {
        tag: 'located',
        location: {
          module: { packageId: this.self, module },
          startLine: ints[0],
          startCol: ints[1],
          endLine: ints[2],
          endCol: ints[3],
        },
        expr,
      };
    }
    const head = this.expr0();
    const args = this.many(() => this.appArg());
    return args.reduce<Expr>((acc, a) => {
      if ('type' in a) {
        if (!this.flat && acc.tag === 'tyApp') return { tag: 'tyApp', expr: acc.expr, types: [...acc.types, a.type] };
        return { tag: 'tyApp', expr: acc, types: [a.type] };
      }
      if (!this.flat && acc.tag === 'app') return { tag: 'app', fun: acc.fun, args: [...acc.args, a.expr] };
      return { tag: 'app', fun: acc, args: [a.expr] };
    }, head);
  }

  // --------------------------------------------------------------------------------------------------- definitions

  private tags(allowed: string[]): Set<string> {
    const out = new Set<string>();
    while (this.isPunct('@')) {
      this.pos++;
      const t = this.tok;
      const tag = this.id();
      if (!allowed.includes(tag))
        throw new LfTextError(`found tag ${tag} but expected one of ${allowed.join(',')}.`, t.line, t.col);
      out.add(tag);
    }
    return out;
  }

  private choice(): TemplateChoice {
    this.word('choice');
    const tags = this.tags(['nonConsuming']);
    const name = this.id();
    this.punct('(');
    const selfBinder = this.id();
    this.punct(')');
    const argBinder = this.varBinder();
    this.punct(':');
    const returnType = this.typ();
    this.punct(',');
    this.word('controllers');
    const controllers = this.expr();
    let observers: Expr | undefined;
    let authorizers: Expr | undefined;
    if (this.isPunct(',') && this.toks[this.pos + 1].value === 'observers') {
      this.pos += 2;
      observers = this.expr();
    }
    if (this.isPunct(',') && this.toks[this.pos + 1].value === 'authorizers') {
      this.pos += 2;
      authorizers = this.expr();
    }
    this.keyword('to');
    const update = this.expr();
    return {
      name,
      consuming: !tags.has('nonConsuming'),
      controllers,
      ...(observers ? { observers } : {}),
      ...(authorizers ? { authorizers } : {}),
      argBinder,
      returnType,
      update,
      selfBinder,
    };
  }

  private instanceBody(): { methods: Map<string, Expr>; view: Expr } {
    this.punct('{');
    this.word('view');
    this.punct('=');
    const view = this.expr();
    this.punct(';');
    const methods = new Map<string, Expr>();
    while (this.isId('method')) {
      this.pos++;
      const name = this.id();
      this.punct('=');
      methods.set(name, this.expr());
      this.punct(';');
    }
    this.punct('}');
    return { methods, view };
  }

  private module(): Module {
    this.word('module');
    const name = this.dottedName();
    this.punct('{');
    const synonyms = new Map<string, DefTypeSyn>();
    const dataTypes = new Map<string, DefDataType>();
    const values = new Map<string, DefValue>();
    const templates = new Map<string, DefTemplate>();
    const exceptions = new Map<string, DefException>();
    const interfaces = new Map<string, DefInterface>();
    while (!this.isPunct('}')) {
      const t = this.tok;
      if (t.kind !== 'id') this.fail('a definition');
      this.pos++;
      switch (t.value) {
        case 'synonym': {
          const n = this.dottedName();
          const params = this.many(() => this.typeBinder());
          this.punct('=');
          synonyms.set(n, { name: n, params, type: this.typ() });
          break;
        }
        case 'record':
        case 'variant': {
          const tags = this.tags(['serializable']);
          const n = this.dottedName();
          const params = this.many(() => this.typeBinder());
          this.punct('=');
          const binder = (): FieldWithType => {
            const field = this.id();
            this.punct(':');
            return { field, type: this.typ() };
          };
          if (t.value === 'record') {
            this.punct('{');
            const fields = this.sepBy(binder, ',');
            this.punct('}');
            dataTypes.set(n, {
              name: n,
              params,
              serializable: tags.has('serializable'),
              cons: { tag: 'record', fields },
            });
          } else {
            const constructors = this.sepBy(binder, '|');
            dataTypes.set(n, {
              name: n,
              params,
              serializable: tags.has('serializable'),
              cons: { tag: 'variant', constructors },
            });
          }
          break;
        }
        case 'enum': {
          const tags = this.tags(['serializable']);
          const n = this.dottedName();
          this.punct('=');
          const constructors = this.sepBy(() => this.id(), '|');
          dataTypes.set(n, {
            name: n,
            params: [],
            serializable: tags.has('serializable'),
            cons: { tag: 'enum', constructors },
          });
          break;
        }
        case 'val': {
          const n = this.dottedName();
          this.punct(':');
          const type = this.typ();
          this.punct('=');
          values.set(n, { name: n, type, expr: this.expr() });
          break;
        }
        case 'template': {
          this.punct('(');
          const param = this.id();
          this.punct(':');
          const tycon = this.dottedName();
          this.punct(')');
          this.punct('=');
          this.punct('{');
          this.word('precondition');
          const precond = this.expr();
          this.punct(';');
          this.word('signatories');
          const signatories = this.expr();
          this.punct(';');
          this.word('observers');
          const observers = this.expr();
          this.punct(';');
          const choices = new Map<string, TemplateChoice>();
          while (this.isId('choice')) {
            const c = this.choice();
            choices.set(c.name, c);
            this.punct(';');
          }
          const impls = new Map<string, TemplateImplements>();
          while (this.isId('implements')) {
            this.pos++;
            const iface = this.fullIdentifier();
            impls.set(qualifiedNameToString(iface), { iface, body: this.instanceBody() });
            this.punct(';');
          }
          let key: DefTemplate['key'];
          if (this.isId('key')) {
            this.pos++;
            const type = this.argTyp();
            const body = this.expr0();
            key = { type, body, maintainers: this.expr0() };
            this.punct(';');
          }
          this.punct('}');
          templates.set(tycon, {
            tycon,
            param,
            precond,
            signatories,
            observers,
            choices,
            ...(key ? { key } : {}),
            implements: impls,
          });
          break;
        }
        case 'exception': {
          const n = this.dottedName();
          this.punct('=');
          this.punct('{');
          this.word('message');
          const message = this.expr();
          this.punct('}');
          exceptions.set(n, { name: n, message });
          break;
        }
        case 'interface': {
          this.punct('(');
          const param = this.id();
          this.punct(':');
          const tycon = this.dottedName();
          this.punct(')');
          this.punct('=');
          this.punct('{');
          this.word('viewtype');
          const view = this.typ();
          this.punct(';');
          const requires: QualifiedName[] = [];
          while (this.isId('requires')) {
            this.pos++;
            requires.push(this.fullIdentifier());
            this.punct(';');
          }
          const methods = new Map<string, InterfaceMethod>();
          while (this.isId('method')) {
            this.pos++;
            const m = this.id();
            this.punct(':');
            methods.set(m, { name: m, type: this.typ() });
            this.punct(';');
          }
          const choices = new Map<string, TemplateChoice>();
          while (this.isId('choice')) {
            const c = this.choice();
            choices.set(c.name, c);
            this.punct(';');
          }
          if (this.isId('coimplements'))
            throw new LfTextError('coimplements is not supported', this.tok.line, this.tok.col);
          this.punct('}');
          interfaces.set(tycon, { tycon, param, methods, choices, view, requires });
          dataTypes.set(tycon, { name: tycon, params: [], serializable: false, cons: { tag: 'interface' } });
          break;
        }
        default:
          this.pos--;
          this.fail('a definition (synonym, record, variant, enum, val, template, exception, interface)');
      }
      this.punct(';');
    }
    this.punct('}');
    return { name, flags: FLAGS, synonyms, dataTypes, values, templates, exceptions, interfaces };
  }

  package(): Package {
    return this.whole(() => {
      let name = this.options.name ?? 'lf-text-package';
      let version = this.options.version ?? '0.0.0';
      if (this.isId('metadata')) {
        this.pos++;
        this.punct('(');
        if (this.tok.kind !== 'simpleString') this.fail('a package name');
        name = this.toks[this.pos++].value;
        this.punct(':');
        if (this.tok.kind !== 'simpleString') this.fail('a package version');
        version = this.toks[this.pos++].value;
        this.punct(')');
      }
      const modules = new Map<string, Module>();
      while (this.isId('module')) {
        const m = this.module();
        if (modules.has(m.name)) throw new LfTextError(`duplicate module ${m.name}`, this.tok.line, this.tok.col);
        modules.set(m.name, m);
      }
      if (this.tok.kind !== 'eof') this.fail("'module'");
      return {
        id: this.self,
        languageVersion: { major: 2, minor: this.minor },
        metadata: { name, version },
        modules,
        imports: [...this.mentioned].sort(),
      };
    });
  }
}

function timestampMicros(t: Token): bigint {
  const m = /^(\d+)-(\d+)-(\d+)T(\d+):(\d+):(\d+)(?:\.(\d+))?Z$/.exec(t.value);
  if (!m) throw new LfTextError(`cannot interpret ${t.value} as a Timestamp`, t.line, t.col);
  const frac = (m[7] ?? '').padEnd(6, '0');
  if (frac.length > 6) throw new LfTextError(`cannot interpret ${t.value} as a Timestamp`, t.line, t.col);
  const ms = utc(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
  if (Number.isNaN(ms)) throw new LfTextError(`cannot interpret ${t.value} as a Timestamp`, t.line, t.col);
  return BigInt(ms) * 1000n + BigInt(frac);
}

function dateDays(t: Token): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(t.value);
  const ms = m ? utc(Number(m[1]), Number(m[2]), Number(m[3]), 0, 0, 0) : NaN;
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== t.value)
    throw new LfTextError(`cannot interpret ${t.value} as a Date`, t.line, t.col);
  return ms / 86_400_000;
}

/** Milliseconds since the epoch of a UTC date-time, NaN when a part is out of range (years 0001–9999, as Daml dates). */
function utc(year: number, month: number, day: number, h: number, m: number, s: number): number {
  if (year < 1 || year > 9999 || month < 1 || month > 12 || day < 1 || day > 31 || h > 23 || m > 59 || s > 59)
    return NaN;
  const d = new Date(Date.UTC(2000, month - 1, day, h, m, s));
  d.setUTCFullYear(year);
  if (d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) return NaN;
  return d.getTime();
}
