/**
 * The Daml-LF 2.x abstract syntax: what the archive decoder and the LF-text parser produce, what the encoder writes and
 * what the interpreter compiles. It mirrors `daml_lf2.proto` (LF 2.1–2.3; the field numbers live in `archive/`) with the
 * archive's compressions undone: interned strings, dotted names and types are resolved, package references are real
 * package ids, n-ary applications/abstractions stay n-ary (as in the proto) because the interpreter benefits from it.
 *
 * Names: a dotted name (module name, type constructor name, value name) is kept as its segments joined by '.', e.g.
 * module `Canton.Internal.Ping`, type `Ping`, or nested `Foo.Bar`. Plain names (fields, variables, constructors,
 * choices, methods) are strings.
 *
 * Every union is discriminated by `tag`. Nothing here evaluates or validates.
 */

export type PackageId = string;
export type DottedName = string;

/** A fully qualified reference to a definition: a type constructor, a synonym, a value, a template, an interface … */
export interface QualifiedName {
  readonly packageId: PackageId;
  readonly module: DottedName;
  readonly name: DottedName;
}

export type TypeConId = QualifiedName;

/** Optional source location of a definition or expression (decoded when present, never required). */
export interface Location {
  readonly module?: { readonly packageId: PackageId; readonly module: DottedName };
  readonly startLine: number;
  readonly startCol: number;
  readonly endLine: number;
  readonly endCol: number;
}

// ---------------------------------------------------------------------------------------------------------------- kinds

export type Kind =
  | { readonly tag: 'star' }
  | { readonly tag: 'nat' }
  | { readonly tag: 'arrow'; readonly params: readonly Kind[]; readonly result: Kind };

// ---------------------------------------------------------------------------------------------------------------- types

/** `daml_lf2.proto` BuiltinType, by name. */
export type BuiltinType =
  | 'UNIT'
  | 'BOOL'
  | 'INT64'
  | 'DATE'
  | 'TIMESTAMP'
  | 'NUMERIC'
  | 'PARTY'
  | 'TEXT'
  | 'CONTRACT_ID'
  | 'OPTIONAL'
  | 'LIST'
  | 'GENMAP'
  | 'ANY'
  | 'ANY_EXCEPTION'
  | 'TYPE_REP'
  | 'ARROW'
  | 'UPDATE'
  | 'FAILURE_CATEGORY'
  | 'TEXTMAP'
  | 'BIGNUMERIC'
  | 'ROUNDING_MODE';

export interface TypeVarWithKind {
  readonly name: string;
  readonly kind: Kind;
}

export interface FieldWithType {
  readonly field: string;
  readonly type: Type;
}

/**
 * Types. Applications are kept as the proto has them: `var`/`con`/`syn`/`builtin` carry their argument lists, `tapp`
 * is the binary application form (used by some encoders).
 */
export type Type =
  | { readonly tag: 'var'; readonly name: string; readonly args: readonly Type[] }
  | { readonly tag: 'con'; readonly tycon: TypeConId; readonly args: readonly Type[] }
  | { readonly tag: 'syn'; readonly tysyn: QualifiedName; readonly args: readonly Type[] }
  | { readonly tag: 'builtin'; readonly builtin: BuiltinType; readonly args: readonly Type[] }
  | { readonly tag: 'forall'; readonly vars: readonly TypeVarWithKind[]; readonly body: Type }
  | { readonly tag: 'struct'; readonly fields: readonly FieldWithType[] }
  | { readonly tag: 'nat'; readonly value: number }
  | { readonly tag: 'tapp'; readonly lhs: Type; readonly rhs: Type };

// ------------------------------------------------------------------------------------------------------------- builtins

/** `daml_lf2.proto` BuiltinFunction, by name (the stable ones and the 2.dev ones a decoder may meet). */
export type BuiltinFunction =
  | 'TRACE'
  | 'ERROR'
  | 'EQUAL'
  | 'LESS_EQ'
  | 'LESS'
  | 'GREATER_EQ'
  | 'GREATER'
  | 'ADD_INT64'
  | 'SUB_INT64'
  | 'MUL_INT64'
  | 'DIV_INT64'
  | 'MOD_INT64'
  | 'EXP_INT64'
  | 'ADD_NUMERIC'
  | 'SUB_NUMERIC'
  | 'MUL_NUMERIC'
  | 'DIV_NUMERIC'
  | 'ROUND_NUMERIC'
  | 'CAST_NUMERIC'
  | 'SHIFT_NUMERIC'
  | 'INT64_TO_NUMERIC'
  | 'NUMERIC_TO_INT64'
  | 'INT64_TO_TEXT'
  | 'NUMERIC_TO_TEXT'
  | 'TIMESTAMP_TO_TEXT'
  | 'DATE_TO_TEXT'
  | 'PARTY_TO_TEXT'
  | 'TEXT_TO_PARTY'
  | 'TEXT_TO_INT64'
  | 'TEXT_TO_NUMERIC'
  | 'CONTRACT_ID_TO_TEXT'
  | 'SHA256_TEXT'
  | 'EXPLODE_TEXT'
  | 'APPEND_TEXT'
  | 'IMPLODE_TEXT'
  | 'CODE_POINTS_TO_TEXT'
  | 'TEXT_TO_CODE_POINTS'
  | 'DATE_TO_UNIX_DAYS'
  | 'UNIX_DAYS_TO_DATE'
  | 'TIMESTAMP_TO_UNIX_MICROSECONDS'
  | 'UNIX_MICROSECONDS_TO_TIMESTAMP'
  | 'COERCE_CONTRACT_ID'
  | 'FOLDL'
  | 'FOLDR'
  | 'EQUAL_LIST'
  | 'GENMAP_EMPTY'
  | 'GENMAP_INSERT'
  | 'GENMAP_LOOKUP'
  | 'GENMAP_DELETE'
  | 'GENMAP_KEYS'
  | 'GENMAP_VALUES'
  | 'GENMAP_SIZE'
  | 'TEXTMAP_EMPTY'
  | 'TEXTMAP_INSERT'
  | 'TEXTMAP_LOOKUP'
  | 'TEXTMAP_DELETE'
  | 'TEXTMAP_TO_LIST'
  | 'TEXTMAP_SIZE'
  | 'ANY_EXCEPTION_MESSAGE'
  | 'FAIL_WITH_STATUS'
  | 'KECCAK256_TEXT'
  | 'SECP256K1_BOOL'
  | 'HEX_TO_TEXT'
  | 'TEXT_TO_HEX'
  | 'SHA256_HEX'
  | 'SECP256K1_WITH_ECDSA_BOOL'
  | 'SECP256K1_VALIDATE_KEY'
  | 'SCALE_BIGNUMERIC'
  | 'PRECISION_BIGNUMERIC'
  | 'ADD_BIGNUMERIC'
  | 'SUB_BIGNUMERIC'
  | 'MUL_BIGNUMERIC'
  | 'DIV_BIGNUMERIC'
  | 'SHIFT_RIGHT_BIGNUMERIC'
  | 'BIGNUMERIC_TO_NUMERIC'
  | 'NUMERIC_TO_BIGNUMERIC'
  | 'BIGNUMERIC_TO_TEXT'
  | 'TYPE_REP_TYCON_NAME'
  | 'EXTERNAL_CALL';

export type BuiltinCon = 'UNIT' | 'FALSE' | 'TRUE';

export type RoundingMode = 'UP' | 'DOWN' | 'CEILING' | 'FLOOR' | 'HALF_UP' | 'HALF_DOWN' | 'HALF_EVEN' | 'UNNECESSARY';

export type FailureCategory = 'INVALID_INDEPENDENT_OF_SYSTEM_STATE' | 'INVALID_GIVEN_CURRENT_SYSTEM_STATE_OTHER';

/**
 * Literals. Int64 and timestamps (µs since the epoch) are bigints; a numeric literal keeps its text, whose number of
 * fractional digits is its scale (`"1.0000000000"` is scale 10); a date is days since 1970-01-01.
 */
export type BuiltinLit =
  | { readonly tag: 'int64'; readonly value: bigint }
  | { readonly tag: 'numeric'; readonly value: string }
  | { readonly tag: 'text'; readonly value: string }
  | { readonly tag: 'timestamp'; readonly value: bigint }
  | { readonly tag: 'date'; readonly value: number }
  | { readonly tag: 'roundingMode'; readonly value: RoundingMode }
  | { readonly tag: 'failureCategory'; readonly value: FailureCategory };

// ---------------------------------------------------------------------------------------------------------- expressions

export interface FieldWithExpr {
  readonly field: string;
  readonly expr: Expr;
}

export interface VarWithType {
  readonly name: string;
  readonly type: Type;
}

export interface Binding {
  readonly binder: VarWithType;
  readonly bound: Expr;
}

/** A type constructor applied to types, as record/variant expressions name it (`Type.Con` in the proto). */
export interface TypeConApp {
  readonly tycon: TypeConId;
  readonly args: readonly Type[];
}

export type CasePattern =
  | { readonly tag: 'default' }
  | { readonly tag: 'variant'; readonly con: TypeConId; readonly variant: string; readonly binder: string }
  | { readonly tag: 'enum'; readonly con: TypeConId; readonly constructor: string }
  | { readonly tag: 'builtinCon'; readonly con: BuiltinCon }
  | { readonly tag: 'nil' }
  | { readonly tag: 'cons'; readonly head: string; readonly tail: string }
  | { readonly tag: 'none' }
  | { readonly tag: 'some'; readonly binder: string };

export interface CaseAlt {
  readonly pattern: CasePattern;
  readonly body: Expr;
}

export type Expr =
  | { readonly tag: 'var'; readonly name: string }
  | { readonly tag: 'val'; readonly ref: QualifiedName }
  | { readonly tag: 'builtin'; readonly fn: BuiltinFunction }
  | { readonly tag: 'builtinCon'; readonly con: BuiltinCon }
  | { readonly tag: 'lit'; readonly lit: BuiltinLit }
  | { readonly tag: 'recCon'; readonly tycon: TypeConApp; readonly fields: readonly FieldWithExpr[] }
  | { readonly tag: 'recProj'; readonly tycon: TypeConApp; readonly field: string; readonly record: Expr }
  | {
      readonly tag: 'recUpd';
      readonly tycon: TypeConApp;
      readonly field: string;
      readonly record: Expr;
      readonly update: Expr;
    }
  | { readonly tag: 'variantCon'; readonly tycon: TypeConApp; readonly variant: string; readonly arg: Expr }
  | { readonly tag: 'enumCon'; readonly tycon: TypeConId; readonly constructor: string }
  | { readonly tag: 'structCon'; readonly fields: readonly FieldWithExpr[] }
  | { readonly tag: 'structProj'; readonly field: string; readonly struct: Expr }
  | { readonly tag: 'structUpd'; readonly field: string; readonly struct: Expr; readonly update: Expr }
  | { readonly tag: 'app'; readonly fun: Expr; readonly args: readonly Expr[] }
  | { readonly tag: 'tyApp'; readonly expr: Expr; readonly types: readonly Type[] }
  | { readonly tag: 'abs'; readonly params: readonly VarWithType[]; readonly body: Expr }
  | { readonly tag: 'tyAbs'; readonly params: readonly TypeVarWithKind[]; readonly body: Expr }
  | { readonly tag: 'case'; readonly scrut: Expr; readonly alts: readonly CaseAlt[] }
  | { readonly tag: 'let'; readonly bindings: readonly Binding[]; readonly body: Expr }
  | { readonly tag: 'nil'; readonly type: Type }
  | { readonly tag: 'cons'; readonly type: Type; readonly front: readonly Expr[]; readonly tail: Expr }
  | { readonly tag: 'none'; readonly type: Type }
  | { readonly tag: 'some'; readonly type: Type; readonly value: Expr }
  | { readonly tag: 'toAny'; readonly type: Type; readonly expr: Expr }
  | { readonly tag: 'fromAny'; readonly type: Type; readonly expr: Expr }
  | { readonly tag: 'typeRep'; readonly type: Type }
  | { readonly tag: 'toAnyException'; readonly type: Type; readonly expr: Expr }
  | { readonly tag: 'fromAnyException'; readonly type: Type; readonly expr: Expr }
  | { readonly tag: 'throw'; readonly returnType: Type; readonly exceptionType: Type; readonly exception: Expr }
  | { readonly tag: 'toInterface'; readonly iface: TypeConId; readonly template: TypeConId; readonly expr: Expr }
  | { readonly tag: 'fromInterface'; readonly iface: TypeConId; readonly template: TypeConId; readonly expr: Expr }
  | {
      readonly tag: 'unsafeFromInterface';
      readonly iface: TypeConId;
      readonly template: TypeConId;
      readonly contractId: Expr;
      readonly expr: Expr;
    }
  | { readonly tag: 'callInterface'; readonly iface: TypeConId; readonly method: string; readonly expr: Expr }
  | { readonly tag: 'viewInterface'; readonly iface: TypeConId; readonly expr: Expr }
  | { readonly tag: 'signatoryInterface'; readonly iface: TypeConId; readonly expr: Expr }
  | { readonly tag: 'observerInterface'; readonly iface: TypeConId; readonly expr: Expr }
  | { readonly tag: 'interfaceTemplateTypeRep'; readonly iface: TypeConId; readonly expr: Expr }
  | {
      readonly tag: 'toRequiredInterface';
      readonly required: TypeConId;
      readonly requiring: TypeConId;
      readonly expr: Expr;
    }
  | {
      readonly tag: 'fromRequiredInterface';
      readonly required: TypeConId;
      readonly requiring: TypeConId;
      readonly expr: Expr;
    }
  | {
      readonly tag: 'unsafeFromRequiredInterface';
      readonly required: TypeConId;
      readonly requiring: TypeConId;
      readonly contractId: Expr;
      readonly expr: Expr;
    }
  | {
      readonly tag: 'choiceController';
      readonly template: TypeConId;
      readonly choice: string;
      readonly contract: Expr;
      readonly choiceArg: Expr;
    }
  | {
      readonly tag: 'choiceObserver';
      readonly template: TypeConId;
      readonly choice: string;
      readonly contract: Expr;
      readonly choiceArg: Expr;
    }
  | { readonly tag: 'experimental'; readonly name: string; readonly type: Type }
  | { readonly tag: 'update'; readonly update: Update }
  /** A location wrapper: present when the archive carries a location on an expression. */
  | { readonly tag: 'located'; readonly location: Location; readonly expr: Expr };

// -------------------------------------------------------------------------------------------------------------- updates

export type Update =
  | { readonly tag: 'pure'; readonly type: Type; readonly expr: Expr }
  | { readonly tag: 'block'; readonly bindings: readonly Binding[]; readonly body: Expr }
  | { readonly tag: 'create'; readonly template: TypeConId; readonly expr: Expr }
  | { readonly tag: 'createInterface'; readonly iface: TypeConId; readonly expr: Expr }
  | {
      readonly tag: 'exercise';
      readonly template: TypeConId;
      readonly choice: string;
      readonly cid: Expr;
      readonly arg: Expr;
    }
  | {
      readonly tag: 'exerciseInterface';
      readonly iface: TypeConId;
      readonly choice: string;
      readonly cid: Expr;
      readonly arg: Expr;
      readonly guard?: Expr;
    }
  | {
      readonly tag: 'exerciseByKey';
      readonly template: TypeConId;
      readonly choice: string;
      readonly key: Expr;
      readonly arg: Expr;
    }
  | { readonly tag: 'fetch'; readonly template: TypeConId; readonly cid: Expr }
  | { readonly tag: 'fetchInterface'; readonly iface: TypeConId; readonly cid: Expr }
  | { readonly tag: 'getTime' }
  | { readonly tag: 'ledgerTimeLt'; readonly expr: Expr }
  | { readonly tag: 'embedExpr'; readonly type: Type; readonly body: Expr }
  | { readonly tag: 'fetchByKey'; readonly template: TypeConId }
  | { readonly tag: 'queryNByKey'; readonly template: TypeConId }
  | {
      readonly tag: 'tryCatch';
      readonly returnType: Type;
      readonly tryExpr: Expr;
      readonly binder: string;
      readonly catchExpr: Expr;
    };

// ---------------------------------------------------------------------------------------------------------- definitions

export type DataCons =
  | { readonly tag: 'record'; readonly fields: readonly FieldWithType[] }
  | { readonly tag: 'variant'; readonly constructors: readonly FieldWithType[] }
  | { readonly tag: 'enum'; readonly constructors: readonly string[] }
  | { readonly tag: 'interface' };

export interface DefDataType {
  readonly name: DottedName;
  readonly params: readonly TypeVarWithKind[];
  readonly serializable: boolean;
  readonly cons: DataCons;
  readonly location?: Location;
}

export interface DefTypeSyn {
  readonly name: DottedName;
  readonly params: readonly TypeVarWithKind[];
  readonly type: Type;
  readonly location?: Location;
}

export interface DefValue {
  readonly name: DottedName;
  readonly type: Type;
  readonly expr: Expr;
  readonly location?: Location;
}

export interface TemplateChoice {
  readonly name: string;
  readonly consuming: boolean;
  /** `\(self: ContractId T) (this: T) (arg: ChoiceArg) -> [Party]`, as in the archive: evaluated with the binders below. */
  readonly controllers: Expr;
  /** Optional choice observers (same binders as controllers). */
  readonly observers?: Expr;
  /** Optional explicit authorizers (2.dev). */
  readonly authorizers?: Expr;
  readonly argBinder: VarWithType;
  readonly returnType: Type;
  readonly update: Expr;
  readonly selfBinder: string;
  readonly location?: Location;
}

export interface InterfaceInstanceBody {
  readonly methods: ReadonlyMap<string, Expr>;
  readonly view: Expr;
}

export interface TemplateKey {
  readonly type: Type;
  readonly body: Expr;
  readonly maintainers: Expr;
}

export interface TemplateImplements {
  readonly iface: TypeConId;
  readonly body: InterfaceInstanceBody;
  readonly location?: Location;
}

export interface DefTemplate {
  /** The template's type constructor name (its record data type has the same name). */
  readonly tycon: DottedName;
  /** The name the template's argument (`this`) is bound to in precondition, signatories, observers, choices. */
  readonly param: string;
  readonly precond: Expr;
  readonly signatories: Expr;
  readonly observers: Expr;
  readonly choices: ReadonlyMap<string, TemplateChoice>;
  readonly key?: TemplateKey;
  /** By interface id rendered as `packageId:Module:Name`. */
  readonly implements: ReadonlyMap<string, TemplateImplements>;
  readonly location?: Location;
}

export interface InterfaceMethod {
  readonly name: string;
  readonly type: Type;
  readonly location?: Location;
}

export interface DefInterface {
  readonly tycon: DottedName;
  readonly param: string;
  readonly methods: ReadonlyMap<string, InterfaceMethod>;
  readonly choices: ReadonlyMap<string, TemplateChoice>;
  readonly view: Type;
  readonly requires: readonly TypeConId[];
  readonly location?: Location;
}

export interface DefException {
  readonly name: DottedName;
  readonly message: Expr;
  readonly location?: Location;
}

export interface FeatureFlags {
  readonly forbidPartyLiterals: boolean;
  readonly dontDivulgeContractIdsInCreateArguments: boolean;
  readonly dontDiscloseNonConsumingChoicesToObservers: boolean;
}

/** Definitions keyed by their dotted name; insertion order is the archive's order (the encoder keeps it). */
export interface Module {
  readonly name: DottedName;
  readonly flags: FeatureFlags;
  readonly synonyms: ReadonlyMap<DottedName, DefTypeSyn>;
  readonly dataTypes: ReadonlyMap<DottedName, DefDataType>;
  readonly values: ReadonlyMap<DottedName, DefValue>;
  readonly templates: ReadonlyMap<DottedName, DefTemplate>;
  readonly exceptions: ReadonlyMap<DottedName, DefException>;
  readonly interfaces: ReadonlyMap<DottedName, DefInterface>;
}

export interface PackageMetadata {
  readonly name: string;
  readonly version: string;
  readonly upgradedPackageId?: PackageId;
}

/** LF language version of a package: major 2, minor `'1' | '2' | '3' | 'dev'`. */
export interface LanguageVersion {
  readonly major: 2;
  readonly minor: string;
}

export interface Package {
  readonly id: PackageId;
  readonly languageVersion: LanguageVersion;
  readonly metadata: PackageMetadata;
  readonly modules: ReadonlyMap<DottedName, Module>;
  /** Package ids this package references (declared imports where the archive has them, else collected). */
  readonly imports: readonly PackageId[];
  /**
   * LF ≥ 2.2 archives either declare their imports (`package_imports`, then `imports` is that list) or give a reason
   * for not declaring them (`no_imported_packages_reason`, kept here; `imports` is then collected). Absent for LF 2.1.
   */
  readonly noImportedPackagesReason?: string;
}

/** `packageId:Module.Name:Entity.Name`, the form the Ledger API and this library key definitions by. */
export function qualifiedNameToString(q: QualifiedName): string {
  return `${q.packageId}:${q.module}:${q.name}`;
}
