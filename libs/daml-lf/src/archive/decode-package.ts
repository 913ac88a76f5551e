/**
 * `daml_lf2.Package` bytes → the AST (`language/ast.ts`), for LF 2.1–2.3 and 2.dev. One pass over the buffer with a
 * hand-written reader: interned strings and dotted names are resolved, the interned type table is decoded once (its
 * entries are shared by every use), interned expressions (LF ≥ 2.2) are decoded once per module and shared, package
 * references (`SelfOrImportedPackageId`) become real package ids. Semantics follow Canton's DecodeV2
 * (`community/daml-lf/archive/…/DecodeV2.scala`): outside the type table a type must be an interned reference; an
 * interned type or expression may refer only to entries of smaller index; flattened forms (TApp, interned kinds and
 * expressions, package imports) only from LF 2.2.
 *
 * Recursion is bounded: at most MAX_NESTING nested types/expressions/updates/kinds (Canton allows 1,000 nested protobuf
 * messages); beyond it the archive is refused with an LfDecodeError, never a JS stack overflow.
 */
import type {
  BuiltinLit,
  CaseAlt,
  CasePattern,
  DataCons,
  DefDataType,
  DefException,
  DefInterface,
  DefTemplate,
  DefTypeSyn,
  DefValue,
  Expr,
  FeatureFlags,
  FieldWithExpr,
  FieldWithType,
  InterfaceMethod,
  Kind,
  LanguageVersion,
  Location,
  Module,
  Package,
  PackageId,
  PackageMetadata,
  QualifiedName,
  TemplateChoice,
  TemplateImplements,
  TemplateKey,
  Type,
  TypeConApp,
  TypeVarWithKind,
  Update,
  VarWithType,
  Binding,
} from '../language/ast';
import { qualifiedNameToString } from '../language/ast';
import {
  BUILTIN_CONS,
  BUILTIN_FUNCTIONS,
  BUILTIN_TYPES,
  FAILURE_CATEGORIES,
  LfDecodeError,
  ROUNDING_MODES,
  WIRE_LEN,
  WIRE_VARINT,
  WireReader,
} from './wire';

/** Nested types, expressions, updates and kinds the decoder follows before refusing the archive. */
export const MAX_NESTING = 1000;

export const LF2_MINORS = ['1', '2', '3', 'dev'] as const;

/** Whether an LF 2 minor has the flat archive (TApp, interned kinds/expressions) and explicit package imports: 2.2+. */
export function isFlatArchive(minor: string): boolean {
  return minor !== '1';
}

const EMPTY: readonly never[] = Object.freeze([]);

interface Range {
  start: number;
  end: number;
}

/** Decodes the bytes of an LF 2 `Package` message whose package id is `packageId`. */
export function decodePackage(bytes: Uint8Array, packageId: PackageId, minor: string): Package {
  if (!(LF2_MINORS as readonly string[]).includes(minor))
    throw new LfDecodeError(`Unknown LF minor version 2.${minor}`);
  return new PackageDecoder(bytes, packageId, minor).decode();
}

class PackageDecoder {
  private readonly r: WireReader;
  private strings: string[] = [];
  private dotted: string[] = [];
  private kinds: Kind[] = [];
  private types: Type[] = [];
  private exprRanges: Range[] = [];
  private exprCache = new Map<number, Expr>();
  private imports: string[] | undefined;
  private readonly referenced = new Set<string>();
  private readonly flat: boolean;
  private depth = 0;
  private currentInternedExpr = -1;

  constructor(
    bytes: Uint8Array,
    private readonly packageId: PackageId,
    private readonly minor: string,
  ) {
    this.r = new WireReader(bytes);
    this.flat = isFlatArchive(minor);
  }

  decode(): Package {
    const r = this.r;
    const modules: Range[] = [];
    const dottedRanges: Range[] = [];
    const typeRanges: Range[] = [];
    const kindRanges: Range[] = [];
    let metadata: Range | undefined;
    let reason: string | undefined;
    const end = r.buf.length;
    while (r.pos < end) {
      const tag = r.uint32();
      const field = tag >>> 3;
      if ((tag & 7) !== WIRE_LEN || field < 1 || field > 9) {
        r.skip(tag & 7);
        continue;
      }
      const e = r.end();
      const range = { start: r.pos, end: e };
      switch (field) {
        case 1:
          modules.push(range);
          break;
        case 2:
          this.strings.push(this.utf8(range));
          break;
        case 3:
          dottedRanges.push(range);
          break;
        case 4:
          metadata = range;
          break;
        case 5:
          typeRanges.push(range);
          break;
        case 6:
          kindRanges.push(range);
          break;
        case 7:
          this.exprRanges.push(range);
          break;
        case 8:
          reason = this.utf8(range);
          this.imports = undefined;
          break;
        case 9:
          this.imports = this.packageImports(range);
          reason = undefined;
          break;
      }
      r.pos = e;
    }
    const flatOnly = (what: string, present: boolean) => {
      if (present && !this.flat) throw new LfDecodeError(`${what} is not supported in Daml-LF 2.${this.minor}`);
    };
    flatOnly('Package.interned_kinds', kindRanges.length > 0);
    flatOnly('Package.interned_exprs', this.exprRanges.length > 0);
    flatOnly('Package.package_imports', this.imports !== undefined);
    flatOnly('Package.no_imported_packages_reason', reason !== undefined);

    for (const d of dottedRanges) this.dotted.push(this.dottedName(d));
    if (!metadata) throw new LfDecodeError(`Package.metadata is required in Daml-LF 2.${this.minor}`);
    const meta = this.metadata(metadata);
    for (const k of kindRanges) {
      r.pos = k.start;
      this.kinds.push(this.kindBody(k.end, true));
    }
    for (const t of typeRanges) {
      r.pos = t.start;
      this.types.push(this.typeBody(t.end, true));
    }
    const out = new Map<string, Module>();
    for (const m of modules) {
      r.pos = m.start;
      const mod = this.module(m.end);
      if (out.has(mod.name)) throw new LfDecodeError(`duplicate module ${mod.name}`);
      out.set(mod.name, mod);
    }
    const languageVersion: LanguageVersion = { major: 2, minor: this.minor };
    const pkg: Package = {
      id: this.packageId,
      languageVersion,
      metadata: meta,
      modules: out,
      imports: this.imports ?? [...this.referenced].sort(),
      ...(reason !== undefined ? { noImportedPackagesReason: reason } : {}),
    };
    return pkg;
  }

  // ---------------------------------------------------------------------------------------------------- primitives

  private utf8(range: Range): string {
    try {
      return UTF8.decode(this.r.buf.subarray(range.start, range.end));
    } catch {
      throw new LfDecodeError('invalid UTF-8 in an interned string');
    }
  }

  private str(i: number): string {
    const s = this.strings[i];
    if (s === undefined) throw new LfDecodeError(`invalid internedString table index ${i}`);
    return s;
  }

  private dname(i: number): string {
    const s = this.dotted[i];
    if (s === undefined) throw new LfDecodeError(`invalid internedDottedName table index ${i}`);
    return s;
  }

  /** Repeated int32, packed or not. */
  private ints(wire: number, into: number[]): void {
    const r = this.r;
    if (wire === WIRE_LEN) {
      const end = r.end();
      while (r.pos < end) into.push(r.int32());
    } else into.push(r.int32());
  }

  private dottedName(range: Range): string {
    const r = this.r;
    r.pos = range.start;
    const segs: number[] = [];
    while (r.pos < range.end) {
      const tag = r.uint32();
      if (tag >>> 3 === 1) this.ints(tag & 7, segs);
      else r.skip(tag & 7);
    }
    if (segs.length === 0) throw new LfDecodeError('empty dotted name');
    return segs.map((s) => this.str(s)).join('.');
  }

  private packageImports(range: Range): string[] {
    const r = this.r;
    const save = r.pos;
    r.pos = range.start;
    const out: string[] = [];
    while (r.pos < range.end) {
      const tag = r.uint32();
      if (tag === ((1 << 3) | WIRE_LEN)) out.push(r.string());
      else r.skip(tag & 7);
    }
    r.pos = save;
    return out;
  }

  private metadata(range: Range): PackageMetadata {
    const r = this.r;
    r.pos = range.start;
    let name = 0;
    let version = 0;
    let upgraded: string | undefined;
    while (r.pos < range.end) {
      const tag = r.uint32();
      switch (tag >>> 3) {
        case 1:
          name = r.int32();
          break;
        case 2:
          version = r.int32();
          break;
        case 3: {
          const end = r.end();
          let idx = 0;
          while (r.pos < end) {
            const t = r.uint32();
            if (t >>> 3 === 1) idx = r.int32();
            else r.skip(t & 7);
          }
          upgraded = this.str(idx);
          break;
        }
        default:
          r.skip(tag & 7);
      }
    }
    return {
      name: this.str(name),
      version: this.str(version),
      ...(upgraded !== undefined ? { upgradedPackageId: upgraded } : {}),
    };
  }

  private enter(): void {
    if (++this.depth > MAX_NESTING) throw new LfDecodeError(`nesting deeper than ${MAX_NESTING} levels`);
  }

  // ------------------------------------------------------------------------------------------------- references

  private packageRef(end: number): PackageId {
    const r = this.r;
    let id: PackageId | undefined;
    while (r.pos < end) {
      const tag = r.uint32();
      switch (tag >>> 3) {
        case 1:
          r.skip(tag & 7);
          id = this.packageId;
          break;
        case 3:
          id = this.str(r.int32());
          break;
        case 4: {
          const i = r.int32();
          if (!this.imports) throw new LfDecodeError(`package_import_id ${i} used but the package declares no imports`);
          id = this.imports[i];
          if (id === undefined) throw new LfDecodeError(`invalid package import index ${i}`);
          break;
        }
        default:
          r.skip(tag & 7);
      }
    }
    if (id === undefined) throw new LfDecodeError('PackageId.SUM_NOT_SET');
    if (id !== this.packageId) this.referenced.add(id);
    return id;
  }

  private moduleRef(end: number): { packageId: PackageId; module: string } {
    const r = this.r;
    let packageId: PackageId | undefined;
    let module = 0;
    while (r.pos < end) {
      const tag = r.uint32();
      switch (tag >>> 3) {
        case 1:
          packageId = this.packageRef(r.end());
          break;
        case 2:
          module = r.int32();
          break;
        default:
          r.skip(tag & 7);
      }
    }
    if (packageId === undefined) throw new LfDecodeError('ModuleId.package_id is missing');
    return { packageId, module: this.dname(module) };
  }

  /** TypeConId, TypeSynId and ValueId share the layout {1: ModuleId, 2: name}. */
  private qualified(end: number): QualifiedName {
    const r = this.r;
    let mod: { packageId: PackageId; module: string } | undefined;
    let name = 0;
    while (r.pos < end) {
      const tag = r.uint32();
      switch (tag >>> 3) {
        case 1:
          mod = this.moduleRef(r.end());
          break;
        case 2:
          name = r.int32();
          break;
        default:
          r.skip(tag & 7);
      }
    }
    if (!mod) throw new LfDecodeError('identifier without a module');
    return { packageId: mod.packageId, module: mod.module, name: this.dname(name) };
  }

  private qualifiedField(): QualifiedName {
    return this.qualified(this.r.end());
  }

  private location(end: number): Location | undefined {
    const r = this.r;
    let module: { packageId: PackageId; module: string } | undefined;
    let range: [number, number, number, number] | undefined;
    while (r.pos < end) {
      const tag = r.uint32();
      switch (tag >>> 3) {
        case 1:
          module = this.moduleRef(r.end());
          break;
        case 2: {
          const e = r.end();
          range = [0, 0, 0, 0];
          while (r.pos < e) {
            const t = r.uint32();
            const f = t >>> 3;
            if (f >= 1 && f <= 4 && (t & 7) === WIRE_VARINT) range[f - 1] = r.int32();
            else r.skip(t & 7);
          }
          break;
        }
        default:
          r.skip(tag & 7);
      }
    }
    if (!range) return undefined;
    return {
      ...(module ? { module } : {}),
      startLine: range[0],
      startCol: range[1],
      endLine: range[2],
      endCol: range[3],
    };
  }

  // ------------------------------------------------------------------------------------------------- kinds, types

  private kind(): Kind {
    return this.kindBody(this.r.end(), false);
  }

  private kindBody(end: number, inTable: boolean): Kind {
    this.enter();
    const r = this.r;
    let out: Kind | undefined;
    while (r.pos < end) {
      const tag = r.uint32();
      switch (tag >>> 3) {
        case 1:
          r.skip(tag & 7);
          out = STAR;
          break;
        case 2: {
          const e = r.end();
          const params: Kind[] = [];
          let result: Kind | undefined;
          while (r.pos < e) {
            const t = r.uint32();
            if (t >>> 3 === 1) params.push(this.kind());
            else if (t >>> 3 === 2) result = this.kind();
            else r.skip(t & 7);
          }
          if (params.length === 0) throw new LfDecodeError('Unexpected empty params');
          if (this.flat && params.length !== 1)
            throw new LfDecodeError(
              `Illegal local flattening: expected a single kind parameter, found ${params.length}`,
            );
          if (!result) throw new LfDecodeError('Kind.Arrow.result is missing');
          out = { tag: 'arrow', params, result };
          break;
        }
        case 3:
          r.skip(tag & 7);
          out = NAT;
          break;
        case 4: {
          if (!this.flat) throw new LfDecodeError(`interned kinds are not supported in Daml-LF 2.${this.minor}`);
          if (inTable) throw new LfDecodeError('Immediate interned kind in interning table');
          const i = r.int32();
          out = this.kinds[i];
          if (!out) throw new LfDecodeError(`invalid internedKinds table index ${i}`);
          break;
        }
        default:
          r.skip(tag & 7);
      }
    }
    this.depth--;
    if (!out) throw new LfDecodeError('Kind.SUM_NOT_SET');
    return out;
  }

  /** A type outside the interning table: an interned reference. */
  private type(): Type {
    const r = this.r;
    const end = r.end();
    let out: Type | undefined;
    while (r.pos < end) {
      const tag = r.uint32();
      if (tag >>> 3 === 8) {
        const i = r.int32();
        out = this.types[i];
        if (!out) throw new LfDecodeError(`invalid internedTypes table index ${i}`);
      } else if (tag >>> 3 >= 1 && tag >>> 3 <= 9) {
        throw new LfDecodeError('a type outside the interning table must be an interned type reference');
      } else r.skip(tag & 7);
    }
    if (!out) throw new LfDecodeError('Type.SUM_NOT_SET');
    return out;
  }

  /** A type inside the interning table (or below an entry): concrete, its parts concrete or interned. */
  private typeBody(end: number, tableEntry: boolean): Type {
    this.enter();
    const r = this.r;
    let out: Type | undefined;
    while (r.pos < end) {
      const tag = r.uint32();
      const field = tag >>> 3;
      switch (field) {
        case 1:
        case 2:
        case 3:
        case 7: {
          const e = r.end();
          let name = 0;
          let ref: QualifiedName | undefined;
          let builtin = 0;
          const args: Type[] = [];
          while (r.pos < e) {
            const t = r.uint32();
            const f = t >>> 3;
            if (f === 2) args.push(this.typeBody(r.end(), false));
            else if (field === 1 && f === 3) name = r.int32();
            else if (field !== 1 && f === 1) {
              if (field === 3) builtin = r.int32();
              else ref = this.qualifiedField();
            } else r.skip(t & 7);
          }
          if (this.flat && field !== 7 && args.length > 0)
            throw new LfDecodeError(`Illegal local flattening: type arguments in Daml-LF 2.${this.minor}`);
          const a = args.length === 0 ? EMPTY : args;
          if (field === 1) out = { tag: 'var', name: this.str(name), args: a };
          else if (field === 3) {
            const b = BUILTIN_TYPES.byNumber.get(builtin);
            if (!b) throw new LfDecodeError(`unknown builtin type ${builtin}`);
            out = { tag: 'builtin', builtin: b, args: a };
          } else {
            if (!ref) throw new LfDecodeError(field === 2 ? 'Type.Con.tycon is missing' : 'Type.Syn.tysyn is missing');
            out = field === 2 ? { tag: 'con', tycon: ref, args: a } : { tag: 'syn', tysyn: ref, args: a };
          }
          break;
        }
        case 4: {
          const e = r.end();
          const vars: TypeVarWithKind[] = [];
          let body: Type | undefined;
          while (r.pos < e) {
            const t = r.uint32();
            if (t >>> 3 === 1) vars.push(this.typeVarWithKind());
            else if (t >>> 3 === 2) body = this.typeBody(r.end(), false);
            else r.skip(t & 7);
          }
          if (vars.length === 0) throw new LfDecodeError('Unexpected empty vars');
          if (this.flat && vars.length !== 1)
            throw new LfDecodeError(`Illegal local flattening: forall with ${vars.length} variables`);
          if (!body) throw new LfDecodeError('Type.Forall.body is missing');
          out = { tag: 'forall', vars, body };
          break;
        }
        case 5: {
          const e = r.end();
          const fields: FieldWithType[] = [];
          while (r.pos < e) {
            const t = r.uint32();
            if (t >>> 3 === 1) fields.push(this.fieldWithType(false));
            else r.skip(t & 7);
          }
          if (fields.length === 0) throw new LfDecodeError('Unexpected empty fields');
          out = { tag: 'struct', fields };
          break;
        }
        case 6: {
          const n = r.sint64();
          if (n < 0n || n > 37n) throw new LfDecodeError(`TNat must be between 0 and 37, found ${n}`);
          out = { tag: 'nat', value: Number(n) };
          break;
        }
        case 8: {
          if (tableEntry)
            throw new LfDecodeError('Immediate Interned type in interning table (needs concrete constructor)');
          const i = r.int32();
          out = this.types[i];
          if (!out) throw new LfDecodeError(`invalid internedTypes table index ${i}`);
          break;
        }
        case 9: {
          if (!this.flat) throw new LfDecodeError(`Illegal case: TApp not supported in version 2.${this.minor}`);
          const e = r.end();
          let lhs: Type | undefined;
          let rhs: Type | undefined;
          while (r.pos < e) {
            const t = r.uint32();
            if (t >>> 3 === 1) lhs = this.typeBody(r.end(), false);
            else if (t >>> 3 === 2) rhs = this.typeBody(r.end(), false);
            else r.skip(t & 7);
          }
          if (!lhs || !rhs) throw new LfDecodeError('Type.TApp needs lhs and rhs');
          out = { tag: 'tapp', lhs, rhs };
          break;
        }
        default:
          r.skip(tag & 7);
      }
    }
    this.depth--;
    if (!out) throw new LfDecodeError('Type.SUM_NOT_SET');
    return out;
  }

  private typeVarWithKind(): TypeVarWithKind {
    const r = this.r;
    const end = r.end();
    let name = 0;
    let kind: Kind | undefined;
    while (r.pos < end) {
      const t = r.uint32();
      if (t >>> 3 === 3) name = r.int32();
      else if (t >>> 3 === 2) kind = this.kind();
      else r.skip(t & 7);
    }
    if (!kind) throw new LfDecodeError('TypeVarWithKind.kind is missing');
    return { name: this.str(name), kind };
  }

  /** FieldWithType and VarWithType: {3: name, 2: type}. */
  private fieldWithType(outsideTable: boolean): FieldWithType {
    const r = this.r;
    const end = r.end();
    let name = 0;
    let type: Type | undefined;
    while (r.pos < end) {
      const t = r.uint32();
      if (t >>> 3 === 3) name = r.int32();
      else if (t >>> 3 === 2) type = outsideTable ? this.type() : this.typeBody(r.end(), false);
      else r.skip(t & 7);
    }
    if (!type) throw new LfDecodeError('a field or binder without a type');
    return { field: this.str(name), type };
  }

  private varWithType(): VarWithType {
    const f = this.fieldWithType(true);
    return { name: f.field, type: f.type };
  }

  /** `Type.Con` as record/variant expressions carry it. */
  private typeConApp(): TypeConApp {
    const r = this.r;
    const end = r.end();
    let tycon: QualifiedName | undefined;
    const args: Type[] = [];
    while (r.pos < end) {
      const t = r.uint32();
      if (t >>> 3 === 1) tycon = this.qualifiedField();
      else if (t >>> 3 === 2) args.push(this.type());
      else r.skip(t & 7);
    }
    if (!tycon) throw new LfDecodeError('Type.Con.tycon is missing');
    return { tycon, args: args.length === 0 ? EMPTY : args };
  }

  // -------------------------------------------------------------------------------------------------- expressions

  private expr(): Expr {
    return this.exprBody(this.r.end());
  }

  private exprBody(end: number): Expr {
    this.enter();
    const r = this.r;
    let loc: Location | undefined;
    let out: Expr | undefined;
    while (r.pos < end) {
      const tag = r.uint32();
      const field = tag >>> 3;
      if (field === 1) {
        loc = this.location(r.end());
        continue;
      }
      switch (field) {
        case 2:
          out = { tag: 'var', name: this.str(r.int32()) };
          break;
        case 3:
          out = { tag: 'val', ref: this.qualifiedField() };
          break;
        case 4: {
          const n = r.int32();
          const fn = BUILTIN_FUNCTIONS.byNumber.get(n);
          if (!fn) throw new LfDecodeError(`unknown builtin function ${n}`);
          out = { tag: 'builtin', fn };
          break;
        }
        case 5: {
          const n = r.int32();
          const con = BUILTIN_CONS.byNumber.get(n);
          if (!con) throw new LfDecodeError(`unknown builtin constructor ${n}`);
          out = { tag: 'builtinCon', con };
          break;
        }
        case 6:
          out = { tag: 'lit', lit: this.lit(r.end()) };
          break;
        case 44: {
          if (!this.flat) throw new LfDecodeError(`INTERNED_EXPR is not supported in Daml-LF 2.${this.minor}`);
          out = this.internedExpr(r.int32());
          break;
        }
        default: {
          if ((tag & 7) !== WIRE_LEN) {
            r.skip(tag & 7);
            break;
          }
          out = this.exprSum(field, r.end());
        }
      }
    }
    this.depth--;
    if (!out) throw new LfDecodeError('Expr.SUM_NOT_SET');
    return loc ? { tag: 'located', location: loc, expr: out } : out;
  }

  private internedExpr(i: number): Expr {
    if (this.currentInternedExpr >= 0 && i >= this.currentInternedExpr)
      throw new LfDecodeError(
        'Interned expression indexes not monotonic (interned expressions may only refer to interned expressions of smaller index)',
      );
    const cached = this.exprCache.get(i);
    if (cached) return cached;
    const range = this.exprRanges[i];
    if (!range) throw new LfDecodeError(`invalid internedExprs table index ${i}`);
    const r = this.r;
    const save = r.pos;
    const saveCurrent = this.currentInternedExpr;
    this.currentInternedExpr = i;
    r.pos = range.start;
    const e = this.exprBody(range.end);
    r.pos = save;
    this.currentInternedExpr = saveCurrent;
    this.exprCache.set(i, e);
    return e;
  }

  private lit(end: number): BuiltinLit {
    const r = this.r;
    let out: BuiltinLit | undefined;
    while (r.pos < end) {
      const tag = r.uint32();
      switch (tag >>> 3) {
        case 1:
          out = { tag: 'int64', value: r.sint64() };
          break;
        case 2:
          out = { tag: 'timestamp', value: r.sfixed64() };
          break;
        case 3:
          out = { tag: 'numeric', value: this.str(r.int32()) };
          break;
        case 4:
          out = { tag: 'text', value: this.str(r.int32()) };
          break;
        case 5:
          out = { tag: 'date', value: r.int32() };
          break;
        case 6: {
          const n = r.int32();
          const value = FAILURE_CATEGORIES.byNumber.get(n);
          if (!value) throw new LfDecodeError(`unknown failure category ${n}`);
          out = { tag: 'failureCategory', value };
          break;
        }
        case 1001: {
          const n = r.int32();
          const value = ROUNDING_MODES.byNumber.get(n);
          if (!value) throw new LfDecodeError(`unknown rounding mode ${n}`);
          out = { tag: 'roundingMode', value };
          break;
        }
        default:
          r.skip(tag & 7);
      }
    }
    if (!out) throw new LfDecodeError('BuiltinLit.SUM_NOT_SET');
    return out;
  }

  private fieldWithExpr(): FieldWithExpr {
    const r = this.r;
    const end = r.end();
    let name = 0;
    let expr: Expr | undefined;
    while (r.pos < end) {
      const t = r.uint32();
      if (t >>> 3 === 3) name = r.int32();
      else if (t >>> 3 === 2) expr = this.expr();
      else r.skip(t & 7);
    }
    if (!expr) throw new LfDecodeError('FieldWithExpr.expr is missing');
    return { field: this.str(name), expr };
  }

  private binding(): Binding {
    const r = this.r;
    const end = r.end();
    let binder: VarWithType | undefined;
    let bound: Expr | undefined;
    while (r.pos < end) {
      const t = r.uint32();
      if (t >>> 3 === 1) binder = this.varWithType();
      else if (t >>> 3 === 2) bound = this.expr();
      else r.skip(t & 7);
    }
    if (!binder || !bound) throw new LfDecodeError('Binding needs a binder and a bound expression');
    return { binder, bound };
  }

  /**
   * A message of numbered parts: ints (interned string or dotted-name indexes, enums), qualified ids, types, exprs.
   * `spec[fieldNo]` says how to read each field; the result is keyed by field number.
   */
  private parts(end: number, spec: Record<number, Part>): Record<number, unknown> {
    const r = this.r;
    const out: Record<number, unknown> = {};
    while (r.pos < end) {
      const tag = r.uint32();
      const f = tag >>> 3;
      const kind = spec[f];
      switch (kind) {
        case 'int':
          out[f] = r.int32();
          break;
        case 'id':
          out[f] = this.qualifiedField();
          break;
        case 'type':
          out[f] = this.type();
          break;
        case 'expr':
          out[f] = this.expr();
          break;
        case 'exprs':
          ((out[f] ??= []) as Expr[]).push(this.expr());
          break;
        case 'types':
          ((out[f] ??= []) as Type[]).push(this.type());
          break;
        case 'con':
          out[f] = this.typeConApp();
          break;
        default:
          r.skip(tag & 7);
      }
    }
    return out;
  }

  private exprSum(field: number, end: number): Expr {
    const r = this.r;
    const need = <T>(v: unknown, what: string): T => {
      if (v === undefined) throw new LfDecodeError(`${what} is missing`);
      return v as T;
    };
    const s = (v: unknown) => this.str((v as number | undefined) ?? 0);
    switch (field) {
      case 7: {
        let tycon: TypeConApp | undefined;
        const fields: FieldWithExpr[] = [];
        while (r.pos < end) {
          const t = r.uint32();
          if (t >>> 3 === 1) tycon = this.typeConApp();
          else if (t >>> 3 === 2) fields.push(this.fieldWithExpr());
          else r.skip(t & 7);
        }
        return { tag: 'recCon', tycon: need(tycon, 'RecCon.tycon'), fields };
      }
      case 8: {
        const p = this.parts(end, { 1: 'con', 4: 'int', 3: 'expr' });
        return {
          tag: 'recProj',
          tycon: need(p[1], 'RecProj.tycon'),
          field: s(p[4]),
          record: need(p[3], 'RecProj.record'),
        };
      }
      case 9: {
        const p = this.parts(end, { 1: 'con', 2: 'int', 3: 'expr', 4: 'expr' });
        return {
          tag: 'recUpd',
          tycon: need(p[1], 'RecUpd.tycon'),
          field: s(p[2]),
          record: need(p[3], 'RecUpd.record'),
          update: need(p[4], 'RecUpd.update'),
        };
      }
      case 10: {
        const p = this.parts(end, { 1: 'con', 2: 'int', 3: 'expr' });
        return {
          tag: 'variantCon',
          tycon: need(p[1], 'VariantCon.tycon'),
          variant: s(p[2]),
          arg: need(p[3], 'VariantCon.variant_arg'),
        };
      }
      case 11: {
        const p = this.parts(end, { 1: 'id', 2: 'int' });
        return { tag: 'enumCon', tycon: need(p[1], 'EnumCon.tycon'), constructor: s(p[2]) };
      }
      case 12: {
        const fields: FieldWithExpr[] = [];
        while (r.pos < end) {
          const t = r.uint32();
          if (t >>> 3 === 1) fields.push(this.fieldWithExpr());
          else r.skip(t & 7);
        }
        return { tag: 'structCon', fields };
      }
      case 13: {
        const p = this.parts(end, { 1: 'int', 2: 'expr' });
        return { tag: 'structProj', field: s(p[1]), struct: need(p[2], 'StructProj.struct') };
      }
      case 14: {
        const p = this.parts(end, { 1: 'int', 2: 'expr', 3: 'expr' });
        return {
          tag: 'structUpd',
          field: s(p[1]),
          struct: need(p[2], 'StructUpd.struct'),
          update: need(p[3], 'StructUpd.update'),
        };
      }
      case 15: {
        const p = this.parts(end, { 1: 'expr', 2: 'exprs' });
        const args = need<Expr[]>(p[2], 'App.args');
        if (this.flat && args.length !== 1)
          throw new LfDecodeError(`Illegal local flattening: application to ${args.length} arguments`);
        return { tag: 'app', fun: need(p[1], 'App.fun'), args };
      }
      case 16: {
        const p = this.parts(end, { 1: 'expr', 2: 'types' });
        const types = need<Type[]>(p[2], 'TyApp.types');
        if (this.flat && types.length !== 1)
          throw new LfDecodeError(`Illegal local flattening: type application to ${types.length} types`);
        return { tag: 'tyApp', expr: need(p[1], 'TyApp.expr'), types };
      }
      case 17: {
        const params: VarWithType[] = [];
        let body: Expr | undefined;
        while (r.pos < end) {
          const t = r.uint32();
          if (t >>> 3 === 1) params.push(this.varWithType());
          else if (t >>> 3 === 2) body = this.expr();
          else r.skip(t & 7);
        }
        if (params.length === 0) throw new LfDecodeError('Unexpected empty params');
        if (this.flat && params.length !== 1)
          throw new LfDecodeError(`Illegal local flattening: abstraction over ${params.length} parameters`);
        return { tag: 'abs', params, body: need(body, 'Abs.body') };
      }
      case 18: {
        const params: TypeVarWithKind[] = [];
        let body: Expr | undefined;
        while (r.pos < end) {
          const t = r.uint32();
          if (t >>> 3 === 1) params.push(this.typeVarWithKind());
          else if (t >>> 3 === 2) body = this.expr();
          else r.skip(t & 7);
        }
        if (params.length === 0) throw new LfDecodeError('Unexpected empty params');
        if (this.flat && params.length !== 1)
          throw new LfDecodeError(`Illegal local flattening: type abstraction over ${params.length} parameters`);
        return { tag: 'tyAbs', params, body: need(body, 'TyAbs.body') };
      }
      case 19: {
        let scrut: Expr | undefined;
        const alts: CaseAlt[] = [];
        while (r.pos < end) {
          const t = r.uint32();
          if (t >>> 3 === 1) scrut = this.expr();
          else if (t >>> 3 === 2) alts.push(this.caseAlt(r.end()));
          else r.skip(t & 7);
        }
        return { tag: 'case', scrut: need(scrut, 'Case.scrut'), alts };
      }
      case 20: {
        const b = this.block(end);
        return { tag: 'let', bindings: b.bindings, body: b.body };
      }
      case 21: {
        const p = this.parts(end, { 1: 'type' });
        return { tag: 'nil', type: need(p[1], 'Nil.type') };
      }
      case 22: {
        const p = this.parts(end, { 1: 'type', 2: 'exprs', 3: 'expr' });
        return {
          tag: 'cons',
          type: need(p[1], 'Cons.type'),
          front: need(p[2], 'Cons.front'),
          tail: need(p[3], 'Cons.tail'),
        };
      }
      case 23:
        return { tag: 'update', update: this.update(end) };
      case 25: {
        const p = this.parts(end, { 1: 'type' });
        return { tag: 'none', type: need(p[1], 'OptionalNone.type') };
      }
      case 26: {
        const p = this.parts(end, { 1: 'type', 2: 'expr' });
        return { tag: 'some', type: need(p[1], 'OptionalSome.type'), value: need(p[2], 'OptionalSome.value') };
      }
      case 27:
      case 28:
      case 30:
      case 31: {
        const p = this.parts(end, { 1: 'type', 2: 'expr' });
        const tag = ({ 27: 'toAny', 28: 'fromAny', 30: 'toAnyException', 31: 'fromAnyException' } as const)[field];
        return { tag, type: need(p[1], `${tag}.type`), expr: need(p[2], `${tag}.expr`) };
      }
      case 29: {
        return { tag: 'typeRep', type: this.typeAt(end) };
      }
      case 32: {
        const p = this.parts(end, { 1: 'type', 2: 'type', 3: 'expr' });
        return {
          tag: 'throw',
          returnType: need(p[1], 'Throw.return_type'),
          exceptionType: need(p[2], 'Throw.exception_type'),
          exception: need(p[3], 'Throw.exception_expr'),
        };
      }
      case 33:
      case 34: {
        const p = this.parts(end, { 1: 'id', 2: 'id', 3: 'expr' });
        return {
          tag: field === 33 ? 'toInterface' : 'fromInterface',
          iface: need(p[1], 'interface_type'),
          template: need(p[2], 'template_type'),
          expr: need(p[3], 'expr'),
        };
      }
      case 35: {
        const p = this.parts(end, { 1: 'id', 2: 'int', 3: 'expr' });
        return {
          tag: 'callInterface',
          iface: need(p[1], 'CallInterface.interface_type'),
          method: s(p[2]),
          expr: need(p[3], 'CallInterface.interface_expr'),
        };
      }
      case 36:
      case 37:
      case 38:
      case 40: {
        const p = this.parts(end, { 1: 'id', 2: 'expr' });
        const tag = (
          {
            36: 'signatoryInterface',
            37: 'observerInterface',
            38: 'viewInterface',
            40: 'interfaceTemplateTypeRep',
          } as const
        )[field];
        return { tag, iface: need(p[1], `${tag}.interface`), expr: need(p[2], `${tag}.expr`) };
      }
      case 39: {
        const p = this.parts(end, { 1: 'id', 2: 'id', 3: 'expr', 4: 'expr' });
        return {
          tag: 'unsafeFromInterface',
          iface: need(p[1], 'UnsafeFromInterface.interface_type'),
          template: need(p[2], 'UnsafeFromInterface.template_type'),
          contractId: need(p[3], 'UnsafeFromInterface.contract_id_expr'),
          expr: need(p[4], 'UnsafeFromInterface.interface_expr'),
        };
      }
      case 41:
      case 42: {
        const p = this.parts(end, { 1: 'id', 2: 'id', 3: 'expr' });
        return {
          tag: field === 41 ? 'toRequiredInterface' : 'fromRequiredInterface',
          required: need(p[1], 'required_interface'),
          requiring: need(p[2], 'requiring_interface'),
          expr: need(p[3], 'expr'),
        };
      }
      case 43: {
        const p = this.parts(end, { 1: 'id', 2: 'id', 3: 'expr', 4: 'expr' });
        return {
          tag: 'unsafeFromRequiredInterface',
          required: need(p[1], 'required_interface'),
          requiring: need(p[2], 'requiring_interface'),
          contractId: need(p[3], 'contract_id_expr'),
          expr: need(p[4], 'interface_expr'),
        };
      }
      case 1001:
      case 1002: {
        const p = this.parts(end, { 1: 'id', 2: 'int', 3: 'expr', 4: 'expr' });
        return {
          tag: field === 1001 ? 'choiceController' : 'choiceObserver',
          template: need(p[1], 'template'),
          choice: s(p[2]),
          contract: need(p[3], 'contract_expr'),
          choiceArg: need(p[4], 'choice_arg_expr'),
        };
      }
      case 9999: {
        let name = '';
        let type: Type | undefined;
        while (r.pos < end) {
          const t = r.uint32();
          if (t >>> 3 === 1) name = r.string();
          else if (t >>> 3 === 2) type = this.type();
          else r.skip(t & 7);
        }
        return { tag: 'experimental', name, type: need(type, 'Experimental.type') };
      }
      default:
        throw new LfDecodeError(`unknown Expr case ${field}`);
    }
  }

  /** A `Type` whose length prefix has been read (its content ends at `end`): an interned reference. */
  private typeAt(end: number): Type {
    const r = this.r;
    let out: Type | undefined;
    while (r.pos < end) {
      const tag = r.uint32();
      if (tag >>> 3 === 8) {
        const i = r.int32();
        out = this.types[i];
        if (!out) throw new LfDecodeError(`invalid internedTypes table index ${i}`);
      } else if (tag >>> 3 >= 1 && tag >>> 3 <= 9)
        throw new LfDecodeError('a type outside the interning table must be an interned type reference');
      else r.skip(tag & 7);
    }
    if (!out) throw new LfDecodeError('Type.SUM_NOT_SET');
    return out;
  }

  private block(end: number): { bindings: Binding[]; body: Expr } {
    const r = this.r;
    const bindings: Binding[] = [];
    let body: Expr | undefined;
    while (r.pos < end) {
      const t = r.uint32();
      if (t >>> 3 === 1) bindings.push(this.binding());
      else if (t >>> 3 === 2) body = this.expr();
      else r.skip(t & 7);
    }
    if (bindings.length === 0) throw new LfDecodeError('Unexpected empty bindings');
    if (!body) throw new LfDecodeError('Block.body is missing');
    return { bindings, body };
  }

  private caseAlt(end: number): CaseAlt {
    this.enter();
    const r = this.r;
    let body: Expr | undefined;
    let pattern: CasePattern | undefined;
    while (r.pos < end) {
      const tag = r.uint32();
      switch (tag >>> 3) {
        case 1:
          body = this.expr();
          break;
        case 2:
          r.skip(tag & 7);
          pattern = DEFAULT;
          break;
        case 3: {
          const p = this.parts(r.end(), { 1: 'id', 2: 'int', 3: 'int' });
          if (!p[1]) throw new LfDecodeError('CaseAlt.Variant.con is missing');
          pattern = {
            tag: 'variant',
            con: p[1] as QualifiedName,
            variant: this.str((p[2] as number) ?? 0),
            binder: this.str((p[3] as number) ?? 0),
          };
          break;
        }
        case 4: {
          const n = r.int32();
          const con = BUILTIN_CONS.byNumber.get(n);
          if (!con) throw new LfDecodeError(`unknown builtin constructor ${n}`);
          pattern = { tag: 'builtinCon', con };
          break;
        }
        case 5:
          r.skip(tag & 7);
          pattern = NIL;
          break;
        case 6: {
          const p = this.parts(r.end(), { 1: 'int', 2: 'int' });
          pattern = { tag: 'cons', head: this.str((p[1] as number) ?? 0), tail: this.str((p[2] as number) ?? 0) };
          break;
        }
        case 7:
          r.skip(tag & 7);
          pattern = NONE;
          break;
        case 8: {
          const p = this.parts(r.end(), { 1: 'int' });
          pattern = { tag: 'some', binder: this.str((p[1] as number) ?? 0) };
          break;
        }
        case 9: {
          const p = this.parts(r.end(), { 1: 'id', 2: 'int' });
          if (!p[1]) throw new LfDecodeError('CaseAlt.Enum.con is missing');
          pattern = { tag: 'enum', con: p[1] as QualifiedName, constructor: this.str((p[2] as number) ?? 0) };
          break;
        }
        default:
          r.skip(tag & 7);
      }
    }
    this.depth--;
    if (!pattern) throw new LfDecodeError('CaseAlt.SUM_NOT_SET');
    if (!body) throw new LfDecodeError('CaseAlt.body is missing');
    return { pattern, body };
  }

  private update(end: number): Update {
    this.enter();
    const r = this.r;
    let out: Update | undefined;
    const need = <T>(v: unknown, what: string): T => {
      if (v === undefined) throw new LfDecodeError(`${what} is missing`);
      return v as T;
    };
    const s = (v: unknown) => this.str((v as number | undefined) ?? 0);
    while (r.pos < end) {
      const tag = r.uint32();
      const field = tag >>> 3;
      if (field === 6) {
        r.skip(tag & 7);
        out = GET_TIME;
        continue;
      }
      if ((tag & 7) !== WIRE_LEN) {
        r.skip(tag & 7);
        continue;
      }
      const e = r.end();
      switch (field) {
        case 1: {
          const p = this.parts(e, { 1: 'type', 2: 'expr' });
          out = { tag: 'pure', type: need(p[1], 'Pure.type'), expr: need(p[2], 'Pure.expr') };
          break;
        }
        case 2: {
          const b = this.block(e);
          out = { tag: 'block', bindings: b.bindings, body: b.body };
          break;
        }
        case 3: {
          const p = this.parts(e, { 1: 'id', 2: 'expr' });
          out = { tag: 'create', template: need(p[1], 'Create.template'), expr: need(p[2], 'Create.expr') };
          break;
        }
        case 12: {
          const p = this.parts(e, { 1: 'id', 2: 'expr' });
          out = {
            tag: 'createInterface',
            iface: need(p[1], 'CreateInterface.interface'),
            expr: need(p[2], 'CreateInterface.expr'),
          };
          break;
        }
        case 4: {
          const p = this.parts(e, { 1: 'id', 6: 'int', 3: 'expr', 5: 'expr' });
          out = {
            tag: 'exercise',
            template: need(p[1], 'Exercise.template'),
            choice: s(p[6]),
            cid: need(p[3], 'Exercise.cid'),
            arg: need(p[5], 'Exercise.arg'),
          };
          break;
        }
        case 13: {
          const p = this.parts(e, { 1: 'id', 2: 'int', 3: 'expr', 4: 'expr', 5: 'expr' });
          out = {
            tag: 'exerciseInterface',
            iface: need(p[1], 'ExerciseInterface.interface'),
            choice: s(p[2]),
            cid: need(p[3], 'ExerciseInterface.cid'),
            arg: need(p[4], 'ExerciseInterface.arg'),
            ...(p[5] !== undefined ? { guard: p[5] as Expr } : {}),
          };
          break;
        }
        case 10: {
          const p = this.parts(e, { 1: 'id', 2: 'int', 3: 'expr', 4: 'expr' });
          out = {
            tag: 'exerciseByKey',
            template: need(p[1], 'ExerciseByKey.template'),
            choice: s(p[2]),
            key: need(p[3], 'ExerciseByKey.key'),
            arg: need(p[4], 'ExerciseByKey.arg'),
          };
          break;
        }
        case 5: {
          const p = this.parts(e, { 1: 'id', 2: 'expr' });
          out = { tag: 'fetch', template: need(p[1], 'Fetch.template'), cid: need(p[2], 'Fetch.cid') };
          break;
        }
        case 14: {
          const p = this.parts(e, { 1: 'id', 2: 'expr' });
          out = {
            tag: 'fetchInterface',
            iface: need(p[1], 'FetchInterface.interface'),
            cid: need(p[2], 'FetchInterface.cid'),
          };
          break;
        }
        case 15:
          out = { tag: 'ledgerTimeLt', expr: this.exprBody(e) };
          break;
        case 7: {
          const p = this.parts(e, { 1: 'type', 2: 'expr' });
          out = { tag: 'embedExpr', type: need(p[1], 'EmbedExpr.type'), body: need(p[2], 'EmbedExpr.body') };
          break;
        }
        case 9: {
          const p = this.parts(e, { 1: 'id' });
          out = { tag: 'fetchByKey', template: need(p[1], 'RetrieveByKey.template') };
          break;
        }
        case 16: {
          const p = this.parts(e, { 1: 'id' });
          out = { tag: 'queryNByKey', template: need(p[1], 'QueryNByKey.template') };
          break;
        }
        case 11: {
          const p = this.parts(e, { 1: 'type', 2: 'expr', 3: 'int', 4: 'expr' });
          out = {
            tag: 'tryCatch',
            returnType: need(p[1], 'TryCatch.return_type'),
            tryExpr: need(p[2], 'TryCatch.try_expr'),
            binder: s(p[3]),
            catchExpr: need(p[4], 'TryCatch.catch_expr'),
          };
          break;
        }
        case 8:
          throw new LfDecodeError('Update.lookup_by_key (field 8) was removed from Daml-LF 2 and is not supported');
        default:
          r.pos = e;
      }
      r.pos = e;
    }
    this.depth--;
    if (!out) throw new LfDecodeError('Update.SUM_NOT_SET');
    return out;
  }

  // -------------------------------------------------------------------------------------------------- definitions

  private module(end: number): Module {
    const r = this.r;
    let name = '';
    let nameIdx = 0;
    let flags: FeatureFlags = NO_FLAGS;
    const pending: Array<{ field: number; range: Range }> = [];
    while (r.pos < end) {
      const tag = r.uint32();
      const f = tag >>> 3;
      if (f === 1) nameIdx = r.int32();
      else if (f === 2) {
        const p = this.parts(r.end(), { 1: 'int', 2: 'int', 3: 'int' });
        flags = {
          forbidPartyLiterals: !!p[1],
          dontDivulgeContractIdsInCreateArguments: !!p[2],
          dontDiscloseNonConsumingChoicesToObservers: !!p[3],
        };
      } else if (f >= 3 && f <= 8 && (tag & 7) === WIRE_LEN) {
        const e = r.end();
        pending.push({ field: f, range: { start: r.pos, end: e } });
        r.pos = e;
      } else r.skip(tag & 7);
    }
    name = this.dname(nameIdx);
    const synonyms = new Map<string, DefTypeSyn>();
    const dataTypes = new Map<string, DefDataType>();
    const values = new Map<string, DefValue>();
    const templates = new Map<string, DefTemplate>();
    const exceptions = new Map<string, DefException>();
    const interfaces = new Map<string, DefInterface>();
    const add = <T>(m: Map<string, T>, key: string, v: T, what: string) => {
      if (m.has(key)) throw new LfDecodeError(`duplicate ${what} ${name}:${key}`);
      m.set(key, v);
    };
    for (const { field, range } of pending) {
      r.pos = range.start;
      switch (field) {
        case 3: {
          const d = this.defTypeSyn(range.end);
          add(synonyms, d.name, d, 'type synonym');
          break;
        }
        case 4: {
          const d = this.defDataType(range.end);
          add(dataTypes, d.name, d, 'data type');
          break;
        }
        case 5: {
          const d = this.defValue(range.end);
          add(values, d.name, d, 'value');
          break;
        }
        case 6: {
          const d = this.defTemplate(range.end);
          add(templates, d.tycon, d, 'template');
          break;
        }
        case 7: {
          const d = this.defException(range.end);
          add(exceptions, d.name, d, 'exception');
          break;
        }
        case 8: {
          const d = this.defInterface(range.end);
          add(interfaces, d.tycon, d, 'interface');
          break;
        }
      }
    }
    return { name, flags, synonyms, dataTypes, values, templates, exceptions, interfaces };
  }

  private defTypeSyn(end: number): DefTypeSyn {
    const r = this.r;
    let location: Location | undefined;
    let name = 0;
    const params: TypeVarWithKind[] = [];
    let type: Type | undefined;
    while (r.pos < end) {
      const t = r.uint32();
      switch (t >>> 3) {
        case 1:
          location = this.location(r.end());
          break;
        case 2:
          name = r.int32();
          break;
        case 3:
          params.push(this.typeVarWithKind());
          break;
        case 4:
          type = this.type();
          break;
        default:
          r.skip(t & 7);
      }
    }
    if (!type) throw new LfDecodeError('DefTypeSyn.type is missing');
    return withLocation({ name: this.dname(name), params, type }, location);
  }

  private defDataType(end: number): DefDataType {
    const r = this.r;
    let location: Location | undefined;
    let name = 0;
    const params: TypeVarWithKind[] = [];
    let serializable = false;
    let cons: DataCons | undefined;
    while (r.pos < end) {
      const t = r.uint32();
      const f = t >>> 3;
      switch (f) {
        case 1:
          location = this.location(r.end());
          break;
        case 2:
          name = r.int32();
          break;
        case 3:
          params.push(this.typeVarWithKind());
          break;
        case 4:
          serializable = r.bool();
          break;
        case 5:
        case 6: {
          const e = r.end();
          const fields: FieldWithType[] = [];
          while (r.pos < e) {
            const tt = r.uint32();
            if (tt >>> 3 === 1) fields.push(this.fieldWithType(true));
            else r.skip(tt & 7);
          }
          cons = f === 5 ? { tag: 'record', fields } : { tag: 'variant', constructors: fields };
          break;
        }
        case 7: {
          const e = r.end();
          const idx: number[] = [];
          while (r.pos < e) {
            const tt = r.uint32();
            if (tt >>> 3 === 2) this.ints(tt & 7, idx);
            else r.skip(tt & 7);
          }
          cons = { tag: 'enum', constructors: idx.map((i) => this.str(i)) };
          break;
        }
        case 8:
          r.skip(t & 7);
          cons = INTERFACE_CONS;
          break;
        default:
          r.skip(t & 7);
      }
    }
    if (!cons) throw new LfDecodeError('DefDataType.DataCons.DATACONS_NOT_SET');
    return withLocation({ name: this.dname(name), params, serializable, cons }, location);
  }

  private defValue(end: number): DefValue {
    const r = this.r;
    let location: Location | undefined;
    let name: number | undefined;
    let type: Type | undefined;
    let expr: Expr | undefined;
    while (r.pos < end) {
      const t = r.uint32();
      switch (t >>> 3) {
        case 1:
          location = this.location(r.end());
          break;
        case 2: {
          const e = r.end();
          name = 0;
          while (r.pos < e) {
            const tt = r.uint32();
            if (tt >>> 3 === 1) name = r.int32();
            else if (tt >>> 3 === 2) type = this.type();
            else r.skip(tt & 7);
          }
          break;
        }
        case 3:
          expr = this.expr();
          break;
        default:
          r.skip(t & 7);
      }
    }
    if (name === undefined || !type) throw new LfDecodeError('DefValue.name_with_type is missing');
    if (!expr) throw new LfDecodeError('DefValue.expr is missing');
    return withLocation({ name: this.dname(name), type, expr }, location);
  }

  private choice(end: number): TemplateChoice {
    const r = this.r;
    let location: Location | undefined;
    let name = 0;
    let consuming = false;
    let controllers: Expr | undefined;
    let observers: Expr | undefined;
    let authorizers: Expr | undefined;
    let argBinder: VarWithType | undefined;
    let returnType: Type | undefined;
    let update: Expr | undefined;
    let selfBinder = 0;
    while (r.pos < end) {
      const t = r.uint32();
      switch (t >>> 3) {
        case 1:
          location = this.location(r.end());
          break;
        case 2:
          name = r.int32();
          break;
        case 3:
          consuming = r.bool();
          break;
        case 4:
          controllers = this.expr();
          break;
        case 5:
          observers = this.expr();
          break;
        case 6:
          argBinder = this.varWithType();
          break;
        case 8:
          returnType = this.type();
          break;
        case 9:
          update = this.expr();
          break;
        case 10:
          selfBinder = r.int32();
          break;
        case 1001:
          authorizers = this.expr();
          break;
        default:
          r.skip(t & 7);
      }
    }
    if (!controllers) throw new LfDecodeError('TemplateChoice.controllers is missing');
    if (!argBinder) throw new LfDecodeError('TemplateChoice.arg_binder is missing');
    if (!returnType) throw new LfDecodeError('TemplateChoice.ret_type is missing');
    if (!update) throw new LfDecodeError('TemplateChoice.update is missing');
    return withLocation(
      {
        name: this.str(name),
        consuming,
        controllers,
        ...(observers ? { observers } : {}),
        ...(authorizers ? { authorizers } : {}),
        argBinder,
        returnType,
        update,
        selfBinder: this.str(selfBinder),
      },
      location,
    );
  }

  private defTemplate(end: number): DefTemplate {
    const r = this.r;
    let tycon = 0;
    let param = 0;
    let precond: Expr | undefined;
    let signatories: Expr | undefined;
    let observers: Expr | undefined;
    let location: Location | undefined;
    let key: TemplateKey | undefined;
    const choices = new Map<string, TemplateChoice>();
    const implements_ = new Map<string, TemplateImplements>();
    while (r.pos < end) {
      const t = r.uint32();
      switch (t >>> 3) {
        case 1:
          tycon = r.int32();
          break;
        case 2:
          param = r.int32();
          break;
        case 3:
          precond = this.expr();
          break;
        case 4:
          signatories = this.expr();
          break;
        case 6: {
          const c = this.choice(r.end());
          if (choices.has(c.name)) throw new LfDecodeError(`duplicate choice ${c.name}`);
          choices.set(c.name, c);
          break;
        }
        case 7:
          observers = this.expr();
          break;
        case 8:
          location = this.location(r.end());
          break;
        case 9: {
          const p = this.parts(r.end(), { 1: 'type', 4: 'expr', 3: 'expr' });
          if (!p[1] || !p[4] || !p[3])
            throw new LfDecodeError('DefTemplate.DefKey needs type, key_expr and maintainers');
          key = { type: p[1] as Type, body: p[4] as Expr, maintainers: p[3] as Expr };
          break;
        }
        case 10: {
          const impl = this.implementsOf(r.end());
          implements_.set(qualifiedNameToString(impl.iface), impl);
          break;
        }
        default:
          r.skip(t & 7);
      }
    }
    if (!precond) throw new LfDecodeError('DefTemplate.precond is missing');
    if (!signatories) throw new LfDecodeError('DefTemplate.signatories is missing');
    if (!observers) throw new LfDecodeError('DefTemplate.observers is missing');
    return withLocation(
      {
        tycon: this.dname(tycon),
        param: this.str(param),
        precond,
        signatories,
        observers,
        choices,
        ...(key ? { key } : {}),
        implements: implements_,
      },
      location,
    );
  }

  private implementsOf(end: number): TemplateImplements {
    const r = this.r;
    let iface: QualifiedName | undefined;
    let location: Location | undefined;
    const methods = new Map<string, Expr>();
    let view: Expr | undefined;
    while (r.pos < end) {
      const t = r.uint32();
      switch (t >>> 3) {
        case 1:
          iface = this.qualifiedField();
          break;
        case 2: {
          const e = r.end();
          while (r.pos < e) {
            const tt = r.uint32();
            if (tt >>> 3 === 1) {
              const p = this.parts(r.end(), { 1: 'int', 2: 'expr' });
              if (!p[2]) throw new LfDecodeError('InterfaceInstanceMethod.value is missing');
              methods.set(this.str((p[1] as number) ?? 0), p[2] as Expr);
            } else if (tt >>> 3 === 2) view = this.expr();
            else r.skip(tt & 7);
          }
          break;
        }
        case 3:
          location = this.location(r.end());
          break;
        default:
          r.skip(t & 7);
      }
    }
    if (!iface) throw new LfDecodeError('DefTemplate.Implements.interface is missing');
    if (!view) throw new LfDecodeError('InterfaceInstanceBody.view is missing');
    return withLocation({ iface, body: { methods, view } }, location);
  }

  private defInterface(end: number): DefInterface {
    const r = this.r;
    let location: Location | undefined;
    let tycon = 0;
    let param = 0;
    const methods = new Map<string, InterfaceMethod>();
    const choices = new Map<string, TemplateChoice>();
    let view: Type | undefined;
    const requires: QualifiedName[] = [];
    while (r.pos < end) {
      const t = r.uint32();
      switch (t >>> 3) {
        case 1:
          location = this.location(r.end());
          break;
        case 2:
          tycon = r.int32();
          break;
        case 3: {
          const e = r.end();
          let mloc: Location | undefined;
          let mname = 0;
          let mtype: Type | undefined;
          while (r.pos < e) {
            const tt = r.uint32();
            if (tt >>> 3 === 1) mloc = this.location(r.end());
            else if (tt >>> 3 === 2) mname = r.int32();
            else if (tt >>> 3 === 3) mtype = this.type();
            else r.skip(tt & 7);
          }
          if (!mtype) throw new LfDecodeError('InterfaceMethod.type is missing');
          const m = withLocation({ name: this.str(mname), type: mtype }, mloc);
          methods.set(m.name, m);
          break;
        }
        case 4:
          param = r.int32();
          break;
        case 5: {
          const c = this.choice(r.end());
          choices.set(c.name, c);
          break;
        }
        case 6:
          view = this.type();
          break;
        case 7:
          requires.push(this.qualifiedField());
          break;
        default:
          r.skip(t & 7);
      }
    }
    if (!view) throw new LfDecodeError('DefInterface.view is missing');
    return withLocation(
      { tycon: this.dname(tycon), param: this.str(param), methods, choices, view, requires },
      location,
    );
  }

  private defException(end: number): DefException {
    const r = this.r;
    let name = 0;
    let location: Location | undefined;
    let message: Expr | undefined;
    while (r.pos < end) {
      const t = r.uint32();
      switch (t >>> 3) {
        case 1:
          name = r.int32();
          break;
        case 2:
          location = this.location(r.end());
          break;
        case 3:
          message = this.expr();
          break;
        default:
          r.skip(t & 7);
      }
    }
    if (!message) throw new LfDecodeError('DefException.message is missing');
    return withLocation({ name: this.dname(name), message }, location);
  }
}

type Part = 'int' | 'id' | 'type' | 'types' | 'expr' | 'exprs' | 'con';

const STAR: Kind = { tag: 'star' };
const NAT: Kind = { tag: 'nat' };
const DEFAULT: CasePattern = { tag: 'default' };
const NIL: CasePattern = { tag: 'nil' };
const NONE: CasePattern = { tag: 'none' };
const GET_TIME: Update = { tag: 'getTime' };
const INTERFACE_CONS: DataCons = { tag: 'interface' };
const NO_FLAGS: FeatureFlags = {
  forbidPartyLiterals: false,
  dontDivulgeContractIdsInCreateArguments: false,
  dontDiscloseNonConsumingChoicesToObservers: false,
};

function withLocation<T extends object>(def: T, location: Location | undefined): T & { location?: Location } {
  return location ? { ...def, location } : def;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });
