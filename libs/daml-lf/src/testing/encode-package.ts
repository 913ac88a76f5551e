/**
 * The AST → `daml_lf2.Package` bytes → `ArchivePayload` → `Archive` (package id = lowercase hex SHA-256 of the
 * payload, as Canton computes it). Interning as Canton's encoder does it (`daml-lf/encoder/…/EncodeV2.scala`): strings
 * and dotted names in order of first use, every type outside the table an `interned_type` reference to a table of
 * concrete types (each distinct type once, its parts references to smaller entries). Expressions are written inline
 * (damlc does not share them); kinds inline. The AST's forms are written as they are: an LF 2.2+ package must hold the
 * flat forms (TApp, single-variable foralls and abstractions), an LF 2.1 package the applied ones.
 *
 * References to the package itself (`packageId === pkg.id`) are written as `self_package_id`, so a package built by the
 * LF-text parser with a placeholder id gets its real id from its own bytes. In LF 2.2+ a reference to a declared import
 * is written as its index in `package_imports`, any other as an interned package-id string (Canton's stable packages).
 */
import { createHash } from 'node:crypto';
import { BinaryWriter, WireType } from '@protobuf-ts/runtime';
import type {
  CaseAlt,
  DefDataType,
  DefException,
  DefInterface,
  DefTemplate,
  DefTypeSyn,
  DefValue,
  Expr,
  FieldWithType,
  Kind,
  Location,
  Module,
  Package,
  PackageId,
  QualifiedName,
  TemplateChoice,
  Type,
  TypeConApp,
  TypeVarWithKind,
  Update,
  VarWithType,
  BuiltinLit,
} from '../language/ast';
import { isFlatArchive, LF2_MINORS } from '../archive/decode-package';
import { BUILTIN_CONS, BUILTIN_FUNCTIONS, BUILTIN_TYPES, FAILURE_CATEGORIES, ROUNDING_MODES } from '../archive/wire';

/** A package the encoder cannot write (a form its LF version does not have, an unknown minor). */
export class LfEncodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LfEncodeError';
  }
}

const LEN = WireType.LengthDelimited;
const VARINT = WireType.Varint;

/** The bytes of the `daml_lf2.Package` message of `pkg`. */
export function encodePackage(pkg: Package): Uint8Array {
  return new PackageEncoder(pkg).encode();
}

/** The bytes of the `ArchivePayload` of `pkg` (LF 2, its minor, patch 0). */
export function encodeArchivePayload(pkg: Package): Uint8Array {
  const w = new BinaryWriter();
  w.tag(3, LEN).string(pkg.languageVersion.minor);
  w.tag(4, LEN).bytes(encodePackage(pkg));
  return w.finish();
}

export interface EncodedArchive {
  /** Lowercase hex SHA-256 of the payload. */
  readonly packageId: PackageId;
  readonly payload: Uint8Array;
  /** The `Archive` (a `.dalf`). */
  readonly dalf: Uint8Array;
}

/** `pkg` as a `.dalf`: its package id is the SHA-256 of the payload (whatever `pkg.id` was). */
export function encodeArchive(pkg: Package): EncodedArchive {
  const payload = encodeArchivePayload(pkg);
  const packageId = createHash('sha256').update(payload).digest('hex');
  const w = new BinaryWriter();
  w.tag(3, LEN).bytes(payload);
  w.tag(4, LEN).string(packageId);
  return { packageId, payload, dalf: w.finish() };
}

class PackageEncoder {
  private readonly strings = new Map<string, number>();
  private readonly dotted = new Map<string, number>();
  private readonly dottedBytes: Uint8Array[] = [];
  private readonly typeIndex = new Map<string, number>();
  private readonly typeIds = new WeakMap<Type, number>();
  private readonly typeBytes: Uint8Array[] = [];
  private readonly flat: boolean;
  private readonly declaredImports: Map<PackageId, number> | undefined;

  constructor(private readonly pkg: Package) {
    const minor = pkg.languageVersion.minor;
    if (pkg.languageVersion.major !== 2 || !(LF2_MINORS as readonly string[]).includes(minor))
      throw new LfEncodeError(`cannot encode Daml-LF ${pkg.languageVersion.major}.${minor}`);
    this.flat = isFlatArchive(minor);
    if (this.flat && pkg.noImportedPackagesReason === undefined)
      this.declaredImports = new Map(pkg.imports.map((id, i) => [id, i]));
  }

  encode(): Uint8Array {
    const w = new BinaryWriter();
    for (const m of this.pkg.modules.values()) {
      w.tag(1, LEN).fork();
      this.module(w, m);
      w.join();
    }
    const meta = this.pkg.metadata;
    w.tag(4, LEN).fork();
    this.int(w, 1, this.str(meta.name));
    this.int(w, 2, this.str(meta.version));
    if (meta.upgradedPackageId !== undefined) {
      w.tag(3, LEN).fork();
      this.int(w, 1, this.str(meta.upgradedPackageId));
      w.join();
    }
    w.join();
    for (const t of this.typeBytes) w.tag(5, LEN).bytes(t);
    for (const d of this.dottedBytes) w.tag(3, LEN).bytes(d);
    for (const s of this.strings.keys()) w.tag(2, LEN).string(s);
    if (this.flat) {
      if (this.pkg.noImportedPackagesReason !== undefined) w.tag(8, LEN).string(this.pkg.noImportedPackagesReason);
      else {
        w.tag(9, LEN).fork();
        for (const id of this.pkg.imports) w.tag(1, LEN).string(id);
        w.join();
      }
    }
    return w.finish();
  }

  // ---------------------------------------------------------------------------------------------------- interning

  private str(s: string): number {
    let i = this.strings.get(s);
    if (i === undefined) {
      i = this.strings.size;
      this.strings.set(s, i);
    }
    return i;
  }

  private dname(name: string): number {
    let i = this.dotted.get(name);
    if (i === undefined) {
      const w = new BinaryWriter();
      w.tag(1, LEN).fork();
      for (const seg of name.split('.')) w.int32(this.str(seg));
      w.join();
      i = this.dottedBytes.length;
      this.dottedBytes.push(w.finish());
      this.dotted.set(name, i);
    }
    return i;
  }

  /** The interning-table index of a type (its parts interned first). */
  private typeId(t: Type): number {
    const known = this.typeIds.get(t);
    if (known !== undefined) return known;
    const w = new BinaryWriter();
    this.typeConcrete(w, t);
    const bytes = w.finish();
    const key = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
    let i = this.typeIndex.get(key);
    if (i === undefined) {
      i = this.typeBytes.length;
      this.typeBytes.push(bytes);
      this.typeIndex.set(key, i);
    }
    this.typeIds.set(t, i);
    return i;
  }

  // ------------------------------------------------------------------------------------------------------ helpers

  /** A non-oneof int32 field: omitted when 0 (proto3's default). */
  private int(w: BinaryWriter, field: number, v: number): void {
    if (v !== 0) w.tag(field, VARINT).int32(v);
  }

  private bool(w: BinaryWriter, field: number, v: boolean): void {
    if (v) w.tag(field, VARINT).bool(true);
  }

  /** A `Type` field: an interned reference. */
  private type(w: BinaryWriter, field: number, t: Type): void {
    const i = this.typeId(t);
    w.tag(field, LEN).fork().tag(8, VARINT).int32(i).join();
  }

  private typeConcrete(w: BinaryWriter, t: Type): void {
    const args = (ts: readonly Type[]) => {
      if (this.flat && ts.length > 0 && t.tag !== 'syn')
        throw new LfEncodeError(
          `type arguments on a ${t.tag} type are not allowed in Daml-LF 2.${this.pkg.languageVersion.minor} (use tapp)`,
        );
      for (const a of ts) this.type(w, 2, a);
    };
    switch (t.tag) {
      case 'var':
        w.tag(1, LEN).fork();
        w.tag(3, VARINT).int32(this.str(t.name));
        args(t.args);
        w.join();
        return;
      case 'con':
        w.tag(2, LEN).fork();
        this.qualified(w, 1, t.tycon);
        args(t.args);
        w.join();
        return;
      case 'builtin':
        w.tag(3, LEN).fork();
        this.int(w, 1, BUILTIN_TYPES.byName[t.builtin]);
        args(t.args);
        w.join();
        return;
      case 'syn':
        w.tag(7, LEN).fork();
        this.qualified(w, 1, t.tysyn);
        args(t.args);
        w.join();
        return;
      case 'forall':
        if (this.flat && t.vars.length !== 1) throw new LfEncodeError('a forall binds one variable from Daml-LF 2.2');
        w.tag(4, LEN).fork();
        for (const v of t.vars) this.typeVarWithKind(w, 1, v);
        this.type(w, 2, t.body);
        w.join();
        return;
      case 'struct':
        w.tag(5, LEN).fork();
        for (const f of t.fields) this.fieldWithType(w, 1, f.field, f.type);
        w.join();
        return;
      case 'nat':
        w.tag(6, VARINT).sint64(t.value);
        return;
      case 'tapp':
        if (!this.flat)
          throw new LfEncodeError(
            'tapp is not allowed in Daml-LF 2.1 (apply var/con/builtin types to their arguments)',
          );
        w.tag(9, LEN).fork();
        this.type(w, 1, t.lhs);
        this.type(w, 2, t.rhs);
        w.join();
        return;
    }
  }

  private kind(w: BinaryWriter, field: number, k: Kind): void {
    w.tag(field, LEN).fork();
    switch (k.tag) {
      case 'star':
        w.tag(1, LEN).fork().join();
        break;
      case 'nat':
        w.tag(3, LEN).fork().join();
        break;
      case 'arrow':
        w.tag(2, LEN).fork();
        for (const p of k.params) this.kind(w, 1, p);
        this.kind(w, 2, k.result);
        w.join();
        break;
    }
    w.join();
  }

  private typeVarWithKind(w: BinaryWriter, field: number, v: TypeVarWithKind): void {
    w.tag(field, LEN).fork();
    this.kind(w, 2, v.kind);
    w.tag(3, VARINT).int32(this.str(v.name));
    w.join();
  }

  /** FieldWithType / VarWithType: {3: name, 2: type}. */
  private fieldWithType(w: BinaryWriter, field: number, name: string, type: Type): void {
    w.tag(field, LEN).fork();
    this.type(w, 2, type);
    w.tag(3, VARINT).int32(this.str(name));
    w.join();
  }

  private varWithType(w: BinaryWriter, field: number, v: VarWithType): void {
    this.fieldWithType(w, field, v.name, v.type);
  }

  private packageRef(w: BinaryWriter, field: number, id: PackageId): void {
    w.tag(field, LEN).fork();
    if (id === this.pkg.id) w.tag(1, LEN).fork().join();
    else {
      const i = this.declaredImports?.get(id);
      if (i !== undefined) w.tag(4, VARINT).int32(i);
      else w.tag(3, VARINT).int32(this.str(id));
    }
    w.join();
  }

  private moduleRef(w: BinaryWriter, field: number, packageId: PackageId, module: string): void {
    w.tag(field, LEN).fork();
    this.packageRef(w, 1, packageId);
    this.int(w, 2, this.dname(module));
    w.join();
  }

  private qualified(w: BinaryWriter, field: number, q: QualifiedName): void {
    w.tag(field, LEN).fork();
    this.moduleRef(w, 1, q.packageId, q.module);
    this.int(w, 2, this.dname(q.name));
    w.join();
  }

  private location(w: BinaryWriter, field: number, loc: Location | undefined): void {
    if (!loc) return;
    w.tag(field, LEN).fork();
    if (loc.module) this.moduleRef(w, 1, loc.module.packageId, loc.module.module);
    w.tag(2, LEN).fork();
    this.int(w, 1, loc.startLine);
    this.int(w, 2, loc.startCol);
    this.int(w, 3, loc.endLine);
    this.int(w, 4, loc.endCol);
    w.join();
    w.join();
  }

  private tyConApp(w: BinaryWriter, field: number, c: TypeConApp): void {
    w.tag(field, LEN).fork();
    this.qualified(w, 1, c.tycon);
    for (const a of c.args) this.type(w, 2, a);
    w.join();
  }

  // -------------------------------------------------------------------------------------------------- expressions

  private expr(w: BinaryWriter, field: number, e: Expr): void {
    w.tag(field, LEN).fork();
    this.exprBody(w, e);
    w.join();
  }

  private exprBody(w: BinaryWriter, e: Expr): void {
    const sub = (field: number, body: () => void) => {
      w.tag(field, LEN).fork();
      body();
      w.join();
    };
    switch (e.tag) {
      case 'located':
        this.location(w, 1, e.location);
        this.exprBody(w, e.expr);
        return;
      case 'var':
        w.tag(2, VARINT).int32(this.str(e.name));
        return;
      case 'val':
        this.qualified(w, 3, e.ref);
        return;
      case 'builtin':
        w.tag(4, VARINT).int32(BUILTIN_FUNCTIONS.byName[e.fn]);
        return;
      case 'builtinCon':
        w.tag(5, VARINT).int32(BUILTIN_CONS.byName[e.con]);
        return;
      case 'lit':
        return sub(6, () => this.lit(w, e.lit));
      case 'recCon':
        return sub(7, () => {
          this.tyConApp(w, 1, e.tycon);
          for (const f of e.fields) this.fieldWithExpr(w, 2, f.field, f.expr);
        });
      case 'recProj':
        return sub(8, () => {
          this.tyConApp(w, 1, e.tycon);
          this.expr(w, 3, e.record);
          this.int(w, 4, this.str(e.field));
        });
      case 'recUpd':
        return sub(9, () => {
          this.tyConApp(w, 1, e.tycon);
          this.int(w, 2, this.str(e.field));
          this.expr(w, 3, e.record);
          this.expr(w, 4, e.update);
        });
      case 'variantCon':
        return sub(10, () => {
          this.tyConApp(w, 1, e.tycon);
          this.int(w, 2, this.str(e.variant));
          this.expr(w, 3, e.arg);
        });
      case 'enumCon':
        return sub(11, () => {
          this.qualified(w, 1, e.tycon);
          this.int(w, 2, this.str(e.constructor));
        });
      case 'structCon':
        return sub(12, () => {
          for (const f of e.fields) this.fieldWithExpr(w, 1, f.field, f.expr);
        });
      case 'structProj':
        return sub(13, () => {
          this.int(w, 1, this.str(e.field));
          this.expr(w, 2, e.struct);
        });
      case 'structUpd':
        return sub(14, () => {
          this.int(w, 1, this.str(e.field));
          this.expr(w, 2, e.struct);
          this.expr(w, 3, e.update);
        });
      case 'app':
        return sub(15, () => {
          this.expr(w, 1, e.fun);
          for (const a of e.args) this.expr(w, 2, a);
        });
      case 'tyApp':
        return sub(16, () => {
          this.expr(w, 1, e.expr);
          for (const t of e.types) this.type(w, 2, t);
        });
      case 'abs':
        return sub(17, () => {
          for (const p of e.params) this.varWithType(w, 1, p);
          this.expr(w, 2, e.body);
        });
      case 'tyAbs':
        return sub(18, () => {
          for (const p of e.params) this.typeVarWithKind(w, 1, p);
          this.expr(w, 2, e.body);
        });
      case 'case':
        return sub(19, () => {
          this.expr(w, 1, e.scrut);
          for (const a of e.alts) this.caseAlt(w, 2, a);
        });
      case 'let':
        return sub(20, () => this.block(w, e.bindings, e.body));
      case 'nil':
        return sub(21, () => this.type(w, 1, e.type));
      case 'cons':
        return sub(22, () => {
          this.type(w, 1, e.type);
          for (const f of e.front) this.expr(w, 2, f);
          this.expr(w, 3, e.tail);
        });
      case 'update':
        return sub(23, () => this.update(w, e.update));
      case 'none':
        return sub(25, () => this.type(w, 1, e.type));
      case 'some':
        return sub(26, () => {
          this.type(w, 1, e.type);
          this.expr(w, 2, e.value);
        });
      case 'toAny':
      case 'fromAny':
      case 'toAnyException':
      case 'fromAnyException':
        return sub({ toAny: 27, fromAny: 28, toAnyException: 30, fromAnyException: 31 }[e.tag], () => {
          this.type(w, 1, e.type);
          this.expr(w, 2, e.expr);
        });
      case 'typeRep':
        return this.type(w, 29, e.type);
      case 'throw':
        return sub(32, () => {
          this.type(w, 1, e.returnType);
          this.type(w, 2, e.exceptionType);
          this.expr(w, 3, e.exception);
        });
      case 'toInterface':
      case 'fromInterface':
        return sub(e.tag === 'toInterface' ? 33 : 34, () => {
          this.qualified(w, 1, e.iface);
          this.qualified(w, 2, e.template);
          this.expr(w, 3, e.expr);
        });
      case 'callInterface':
        return sub(35, () => {
          this.qualified(w, 1, e.iface);
          this.int(w, 2, this.str(e.method));
          this.expr(w, 3, e.expr);
        });
      case 'signatoryInterface':
      case 'observerInterface':
      case 'viewInterface':
      case 'interfaceTemplateTypeRep':
        return sub(
          { signatoryInterface: 36, observerInterface: 37, viewInterface: 38, interfaceTemplateTypeRep: 40 }[e.tag],
          () => {
            this.qualified(w, 1, e.iface);
            this.expr(w, 2, e.expr);
          },
        );
      case 'unsafeFromInterface':
        return sub(39, () => {
          this.qualified(w, 1, e.iface);
          this.qualified(w, 2, e.template);
          this.expr(w, 3, e.contractId);
          this.expr(w, 4, e.expr);
        });
      case 'toRequiredInterface':
      case 'fromRequiredInterface':
        return sub(e.tag === 'toRequiredInterface' ? 41 : 42, () => {
          this.qualified(w, 1, e.required);
          this.qualified(w, 2, e.requiring);
          this.expr(w, 3, e.expr);
        });
      case 'unsafeFromRequiredInterface':
        return sub(43, () => {
          this.qualified(w, 1, e.required);
          this.qualified(w, 2, e.requiring);
          this.expr(w, 3, e.contractId);
          this.expr(w, 4, e.expr);
        });
      case 'choiceController':
      case 'choiceObserver':
        return sub(e.tag === 'choiceController' ? 1001 : 1002, () => {
          this.qualified(w, 1, e.template);
          this.int(w, 2, this.str(e.choice));
          this.expr(w, 3, e.contract);
          this.expr(w, 4, e.choiceArg);
        });
      case 'experimental':
        return sub(9999, () => {
          w.tag(1, LEN).string(e.name);
          this.type(w, 2, e.type);
        });
    }
  }

  private lit(w: BinaryWriter, l: BuiltinLit): void {
    switch (l.tag) {
      case 'int64':
        w.tag(1, VARINT).sint64(l.value);
        return;
      case 'timestamp':
        w.tag(2, WireType.Bit64).sfixed64(l.value);
        return;
      case 'numeric':
        w.tag(3, VARINT).int32(this.str(l.value));
        return;
      case 'text':
        w.tag(4, VARINT).int32(this.str(l.value));
        return;
      case 'date':
        w.tag(5, VARINT).int32(l.value);
        return;
      case 'failureCategory':
        w.tag(6, VARINT).int32(FAILURE_CATEGORIES.byName[l.value]);
        return;
      case 'roundingMode':
        w.tag(1001, VARINT).int32(ROUNDING_MODES.byName[l.value]);
        return;
    }
  }

  private fieldWithExpr(w: BinaryWriter, field: number, name: string, e: Expr): void {
    w.tag(field, LEN).fork();
    this.expr(w, 2, e);
    w.tag(3, VARINT).int32(this.str(name));
    w.join();
  }

  private block(w: BinaryWriter, bindings: readonly { binder: VarWithType; bound: Expr }[], body: Expr): void {
    for (const b of bindings) {
      w.tag(1, LEN).fork();
      this.varWithType(w, 1, b.binder);
      this.expr(w, 2, b.bound);
      w.join();
    }
    this.expr(w, 2, body);
  }

  private caseAlt(w: BinaryWriter, field: number, a: CaseAlt): void {
    w.tag(field, LEN).fork();
    this.expr(w, 1, a.body);
    const p = a.pattern;
    switch (p.tag) {
      case 'default':
        w.tag(2, LEN).fork().join();
        break;
      case 'variant':
        w.tag(3, LEN).fork();
        this.qualified(w, 1, p.con);
        this.int(w, 2, this.str(p.variant));
        this.int(w, 3, this.str(p.binder));
        w.join();
        break;
      case 'builtinCon':
        w.tag(4, VARINT).int32(BUILTIN_CONS.byName[p.con]);
        break;
      case 'nil':
        w.tag(5, LEN).fork().join();
        break;
      case 'cons':
        w.tag(6, LEN).fork();
        this.int(w, 1, this.str(p.head));
        this.int(w, 2, this.str(p.tail));
        w.join();
        break;
      case 'none':
        w.tag(7, LEN).fork().join();
        break;
      case 'some':
        w.tag(8, LEN).fork();
        this.int(w, 1, this.str(p.binder));
        w.join();
        break;
      case 'enum':
        w.tag(9, LEN).fork();
        this.qualified(w, 1, p.con);
        this.int(w, 2, this.str(p.constructor));
        w.join();
        break;
    }
    w.join();
  }

  private update(w: BinaryWriter, u: Update): void {
    const sub = (field: number, body: () => void) => {
      w.tag(field, LEN).fork();
      body();
      w.join();
    };
    switch (u.tag) {
      case 'pure':
        return sub(1, () => {
          this.type(w, 1, u.type);
          this.expr(w, 2, u.expr);
        });
      case 'block':
        return sub(2, () => this.block(w, u.bindings, u.body));
      case 'create':
        return sub(3, () => {
          this.qualified(w, 1, u.template);
          this.expr(w, 2, u.expr);
        });
      case 'exercise':
        return sub(4, () => {
          this.qualified(w, 1, u.template);
          this.expr(w, 3, u.cid);
          this.expr(w, 5, u.arg);
          this.int(w, 6, this.str(u.choice));
        });
      case 'fetch':
        return sub(5, () => {
          this.qualified(w, 1, u.template);
          this.expr(w, 2, u.cid);
        });
      case 'getTime':
        return sub(6, () => undefined);
      case 'embedExpr':
        return sub(7, () => {
          this.type(w, 1, u.type);
          this.expr(w, 2, u.body);
        });
      case 'fetchByKey':
        return sub(9, () => this.qualified(w, 1, u.template));
      case 'exerciseByKey':
        return sub(10, () => {
          this.qualified(w, 1, u.template);
          this.int(w, 2, this.str(u.choice));
          this.expr(w, 3, u.key);
          this.expr(w, 4, u.arg);
        });
      case 'tryCatch':
        return sub(11, () => {
          this.type(w, 1, u.returnType);
          this.expr(w, 2, u.tryExpr);
          this.int(w, 3, this.str(u.binder));
          this.expr(w, 4, u.catchExpr);
        });
      case 'createInterface':
        return sub(12, () => {
          this.qualified(w, 1, u.iface);
          this.expr(w, 2, u.expr);
        });
      case 'exerciseInterface':
        return sub(13, () => {
          this.qualified(w, 1, u.iface);
          this.int(w, 2, this.str(u.choice));
          this.expr(w, 3, u.cid);
          this.expr(w, 4, u.arg);
          if (u.guard) this.expr(w, 5, u.guard);
        });
      case 'fetchInterface':
        return sub(14, () => {
          this.qualified(w, 1, u.iface);
          this.expr(w, 2, u.cid);
        });
      case 'ledgerTimeLt':
        return this.expr(w, 15, u.expr);
      case 'queryNByKey':
        return sub(16, () => this.qualified(w, 1, u.template));
    }
  }

  // -------------------------------------------------------------------------------------------------- definitions

  private module(w: BinaryWriter, m: Module): void {
    this.int(w, 1, this.dname(m.name));
    w.tag(2, LEN).fork();
    this.bool(w, 1, m.flags.forbidPartyLiterals);
    this.bool(w, 2, m.flags.dontDivulgeContractIdsInCreateArguments);
    this.bool(w, 3, m.flags.dontDiscloseNonConsumingChoicesToObservers);
    w.join();
    for (const d of m.synonyms.values()) this.defTypeSyn(w, d);
    for (const d of m.dataTypes.values()) this.defDataType(w, d);
    for (const d of m.values.values()) this.defValue(w, d);
    for (const d of m.templates.values()) this.defTemplate(w, d);
    for (const d of m.exceptions.values()) this.defException(w, d);
    for (const d of m.interfaces.values()) this.defInterface(w, d);
  }

  private defTypeSyn(w: BinaryWriter, d: DefTypeSyn): void {
    w.tag(3, LEN).fork();
    this.location(w, 1, d.location);
    this.int(w, 2, this.dname(d.name));
    for (const p of d.params) this.typeVarWithKind(w, 3, p);
    this.type(w, 4, d.type);
    w.join();
  }

  private defDataType(w: BinaryWriter, d: DefDataType): void {
    w.tag(4, LEN).fork();
    this.location(w, 1, d.location);
    this.int(w, 2, this.dname(d.name));
    for (const p of d.params) this.typeVarWithKind(w, 3, p);
    this.bool(w, 4, d.serializable);
    const fields = (field: number, fs: readonly FieldWithType[]) => {
      w.tag(field, LEN).fork();
      for (const f of fs) this.fieldWithType(w, 1, f.field, f.type);
      w.join();
    };
    switch (d.cons.tag) {
      case 'record':
        fields(5, d.cons.fields);
        break;
      case 'variant':
        fields(6, d.cons.constructors);
        break;
      case 'enum': {
        w.tag(7, LEN).fork();
        if (d.cons.constructors.length > 0) {
          w.tag(2, LEN).fork();
          for (const c of d.cons.constructors) w.int32(this.str(c));
          w.join();
        }
        w.join();
        break;
      }
      case 'interface':
        w.tag(8, LEN).fork().join();
        break;
    }
    w.join();
  }

  private defValue(w: BinaryWriter, d: DefValue): void {
    w.tag(5, LEN).fork();
    this.location(w, 1, d.location);
    w.tag(2, LEN).fork();
    this.int(w, 1, this.dname(d.name));
    this.type(w, 2, d.type);
    w.join();
    this.expr(w, 3, d.expr);
    w.join();
  }

  private choice(w: BinaryWriter, field: number, c: TemplateChoice): void {
    w.tag(field, LEN).fork();
    this.location(w, 1, c.location);
    this.int(w, 2, this.str(c.name));
    this.bool(w, 3, c.consuming);
    this.expr(w, 4, c.controllers);
    if (c.observers) this.expr(w, 5, c.observers);
    this.varWithType(w, 6, c.argBinder);
    this.type(w, 8, c.returnType);
    this.expr(w, 9, c.update);
    this.int(w, 10, this.str(c.selfBinder));
    if (c.authorizers) this.expr(w, 1001, c.authorizers);
    w.join();
  }

  private defTemplate(w: BinaryWriter, t: DefTemplate): void {
    w.tag(6, LEN).fork();
    this.int(w, 1, this.dname(t.tycon));
    this.int(w, 2, this.str(t.param));
    this.expr(w, 3, t.precond);
    this.expr(w, 4, t.signatories);
    for (const c of t.choices.values()) this.choice(w, 6, c);
    this.expr(w, 7, t.observers);
    this.location(w, 8, t.location);
    if (t.key) {
      w.tag(9, LEN).fork();
      this.type(w, 1, t.key.type);
      this.expr(w, 3, t.key.maintainers);
      this.expr(w, 4, t.key.body);
      w.join();
    }
    for (const impl of t.implements.values()) {
      w.tag(10, LEN).fork();
      this.qualified(w, 1, impl.iface);
      w.tag(2, LEN).fork();
      for (const [name, value] of impl.body.methods) {
        w.tag(1, LEN).fork();
        this.int(w, 1, this.str(name));
        this.expr(w, 2, value);
        w.join();
      }
      this.expr(w, 2, impl.body.view);
      w.join();
      this.location(w, 3, impl.location);
      w.join();
    }
    w.join();
  }

  private defInterface(w: BinaryWriter, d: DefInterface): void {
    w.tag(8, LEN).fork();
    this.location(w, 1, d.location);
    this.int(w, 2, this.dname(d.tycon));
    for (const m of d.methods.values()) {
      w.tag(3, LEN).fork();
      this.location(w, 1, m.location);
      this.int(w, 2, this.str(m.name));
      this.type(w, 3, m.type);
      w.join();
    }
    this.int(w, 4, this.str(d.param));
    for (const c of d.choices.values()) this.choice(w, 5, c);
    this.type(w, 6, d.view);
    for (const r of d.requires) this.qualified(w, 7, r);
    w.join();
  }

  private defException(w: BinaryWriter, d: DefException): void {
    w.tag(7, LEN).fork();
    this.int(w, 1, this.dname(d.name));
    this.location(w, 2, d.location);
    this.expr(w, 3, d.message);
    w.join();
  }
}
