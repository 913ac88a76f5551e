/**
 * Compiled code: what the compiler makes of the AST once per definition and the machine runs. Variables are de Bruijn
 * indices into a persistent linked environment; n-ary applications and abstractions stay n-ary.
 */
import type { DefValue, Location, QualifiedName, RoundingMode, Type, TypeConId } from '../language/ast';
import type { Num } from './numeric';
import type { MapTree } from './smap';

export interface Cons {
  readonly h: SValue;
  readonly tl: Cons | null;
}

export type SValue =
  | { readonly t: 'unit' }
  | { readonly t: 'bool'; readonly v: boolean }
  | { readonly t: 'int64'; readonly v: bigint }
  | { readonly t: 'numeric'; readonly v: Num }
  | { readonly t: 'bignumeric'; readonly v: Num }
  | { readonly t: 'text'; readonly v: string }
  | { readonly t: 'date'; readonly v: number }
  | { readonly t: 'timestamp'; readonly v: bigint }
  | { readonly t: 'party'; readonly v: string }
  | { readonly t: 'cid'; readonly v: string }
  | { readonly t: 'list'; readonly v: Cons | null }
  | { readonly t: 'optional'; readonly v: SValue | null }
  /** Ordered by key (`compareText`); see `smap.ts`. */
  | { readonly t: 'textmap'; readonly v: MapTree<string, SValue> }
  /** Ordered by key (`compareValues`); see `smap.ts`. */
  | { readonly t: 'genmap'; readonly v: MapTree<SValue, SValue> }
  | { readonly t: 'record'; readonly id: TypeConId; readonly f: readonly string[]; readonly v: readonly SValue[] }
  | { readonly t: 'variant'; readonly id: TypeConId; readonly con: string; readonly rank: number; readonly v: SValue }
  | { readonly t: 'enum'; readonly id: TypeConId; readonly con: string; readonly rank: number }
  /** Fields sorted by name. */
  | { readonly t: 'struct'; readonly f: readonly string[]; readonly v: readonly SValue[] }
  | { readonly t: 'any'; readonly ty: Type; readonly v: SValue }
  | { readonly t: 'typerep'; readonly ty: Type }
  | { readonly t: 'roundingMode'; readonly v: RoundingMode }
  | { readonly t: 'update'; readonly u: UpdateCode; readonly env: Env }
  | { readonly t: 'closure'; readonly arity: number; readonly body: Code; readonly env: Env }
  | { readonly t: 'builtin'; readonly b: BuiltinDef }
  | { readonly t: 'pap'; readonly fn: SValue; readonly args: readonly SValue[] };

/** What builtins and compiled primitives may ask of the machine (implemented by `Machine`). */
export interface MachineOps {
  readonly isUpdateMachine: boolean;
  /** Charges `bytes` (an estimate, `memory.ts`) to the interpretation's memory budget before they are built. */
  charge(bytes: number): void;
  /** Records a TRACE message (Canton logs it; a submission may pass it on). */
  trace(message: string): void;
  evalIn(code: Code, env: Env): void;
  foldl(f: SValue, z: SValue, l: Cons | null): void;
  foldr(f: SValue, z: SValue, arr: SValue[]): void;
  equalList(f: SValue, xs: Cons | null, ys: Cons | null): void;
  exceptionMessage(exc: Extract<SValue, { t: 'any' }>): void;
}

export interface EnvCell {
  readonly v: SValue;
  readonly n: Env;
}
export type Env = EnvCell | null;

export function extend(env: Env, vals: readonly SValue[]): Env {
  for (let i = 0; i < vals.length; i++) env = { v: vals[i], n: env };
  return env;
}

/** A builtin function: `run` returns the result, or `undefined` when it has set the machine's next state itself. */
export interface BuiltinDef {
  readonly name: string;
  readonly arity: number;
  readonly run: (args: readonly SValue[], m: MachineOps) => SValue | undefined;
}

/** A top-level value: compiled on first use, evaluated once. */
export interface DefRef {
  readonly ref: QualifiedName;
  readonly def: DefValue;
  code?: Code;
  value?: SValue;
}

export const enum Op {
  Var,
  Const,
  Val,
  App,
  Abs,
  Let,
  Case,
  Prim,
  Upd,
  Loc,
}

export type Alt =
  | { readonly k: 'default'; readonly body: Code }
  | { readonly k: 'variant'; readonly con: string; readonly body: Code }
  | { readonly k: 'enum'; readonly con: string; readonly body: Code }
  | { readonly k: 'bool'; readonly v: boolean; readonly body: Code }
  | { readonly k: 'unit'; readonly body: Code }
  | { readonly k: 'nil'; readonly body: Code }
  | { readonly k: 'cons'; readonly body: Code }
  | { readonly k: 'none'; readonly body: Code }
  | { readonly k: 'some'; readonly body: Code };

export type PrimFn = (vals: SValue[], m: MachineOps) => SValue | undefined;

export type Code =
  | { readonly op: Op.Var; readonly i: number }
  | { readonly op: Op.Const; readonly v: SValue }
  | { readonly op: Op.Val; readonly d: DefRef }
  | { readonly op: Op.App; readonly fn: Code; readonly args: readonly Code[] }
  | { readonly op: Op.Abs; readonly arity: number; readonly body: Code }
  | { readonly op: Op.Let; readonly bound: Code; readonly body: Code }
  | { readonly op: Op.Case; readonly scrut: Code; readonly alts: readonly Alt[] }
  /** Evaluate `args` left to right, then `f` (which may throw a Daml failure, or set the machine state and return undefined). */
  | { readonly op: Op.Prim; readonly args: readonly Code[]; readonly f: PrimFn }
  | { readonly op: Op.Upd; readonly u: UpdateCode }
  | { readonly op: Op.Loc; readonly loc: Location; readonly body: Code };

/** Updates; their expressions are evaluated in the environment the update value captured. */
export type UpdateCode =
  | { readonly op: 'pure'; readonly e: Code }
  | { readonly op: 'block'; readonly binds: readonly Code[]; readonly body: Code }
  | { readonly op: 'embed'; readonly e: Code }
  | { readonly op: 'create'; readonly template: TypeConId; readonly arg: Code }
  | { readonly op: 'createInterface'; readonly iface: TypeConId; readonly arg: Code }
  | {
      readonly op: 'exercise';
      readonly template: TypeConId;
      readonly choice: string;
      readonly cid: Code;
      readonly arg: Code;
    }
  | {
      readonly op: 'exerciseInterface';
      readonly iface: TypeConId;
      readonly choice: string;
      readonly cid: Code;
      readonly arg: Code;
      readonly guard?: Code;
    }
  | { readonly op: 'fetch'; readonly template: TypeConId; readonly cid: Code }
  | { readonly op: 'fetchInterface'; readonly iface: TypeConId; readonly cid: Code }
  | { readonly op: 'getTime' }
  | { readonly op: 'ledgerTimeLt'; readonly e: Code }
  | { readonly op: 'tryCatch'; readonly body: Code; readonly handler: Code }
  | { readonly op: 'unsupported'; readonly what: string };
