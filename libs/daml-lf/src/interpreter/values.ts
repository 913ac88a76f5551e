/**
 * Runtime values of the interpreter (Canton's `SValue`). Int64 and timestamps are bigints, Numeric an unscaled bigint
 * with its scale, lists persistent cons cells (O(1) cons and tail, as Speedy's FrontStack), TextMap/GenMap persistent
 * weight-balanced trees in key order (`smap.ts`), closures and partial applications of compiled code or builtins.
 */
import type { Type, TypeConId } from '../language/ast';
import type { Cons, SValue } from './code';
import { compare as compareNum, type Num } from './numeric';
import { mapEntries, mapForEach } from './smap';
import { compareText } from './text';

export type { Cons, SValue } from './code';

export type SRecord = Extract<SValue, { t: 'record' }>;

export const UNIT: SValue = { t: 'unit' };
export const TRUE: SValue = { t: 'bool', v: true };
export const FALSE: SValue = { t: 'bool', v: false };
export const NONE: SValue = { t: 'optional', v: null };
export const NIL: SValue = { t: 'list', v: null };
export const bool = (b: boolean) => (b ? TRUE : FALSE);
export const int64 = (v: bigint): SValue => ({ t: 'int64', v });
export const text = (v: string): SValue => ({ t: 'text', v });
export const some = (v: SValue): SValue => ({ t: 'optional', v });
export const party = (v: string): SValue => ({ t: 'party', v });
export const numericValue = (v: Num): SValue => ({ t: 'numeric', v });

export function listFromArray(xs: readonly SValue[]): SValue {
  let c: Cons | null = null;
  for (let i = xs.length - 1; i >= 0; i--) c = { h: xs[i], tl: c };
  return { t: 'list', v: c };
}

export function listToArray(l: Cons | null): SValue[] {
  const out: SValue[] = [];
  for (let c = l; c; c = c.tl) out.push(c.h);
  return out;
}

/** Calls `f` on every contract id of a serializable value, in order. */
export function forEachContractId(v: SValue, f: (cid: string) => void): void {
  switch (v.t) {
    case 'cid':
      return f(v.v);
    case 'list':
      for (let c = v.v; c; c = c.tl) forEachContractId(c.h, f);
      return;
    case 'optional':
      if (v.v) forEachContractId(v.v, f);
      return;
    case 'textmap':
      mapForEach(v.v, (_, x) => forEachContractId(x, f));
      return;
    case 'genmap':
      mapForEach(v.v, (k, x) => {
        forEachContractId(k, f);
        forEachContractId(x, f);
      });
      return;
    case 'record':
    case 'struct':
      for (const x of v.v) forEachContractId(x, f);
      return;
    case 'variant':
    case 'any':
      return forEachContractId(v.v, f);
    default:
      return;
  }
}

/** A stable textual key of a type (for Any/TypeRep equality and ordering). */
export function typeKey(t: Type): string {
  switch (t.tag) {
    case 'var':
      return t.args.length ? `(${t.name} ${t.args.map(typeKey).join(' ')})` : t.name;
    case 'con': {
      const c = `${t.tycon.packageId}:${t.tycon.module}:${t.tycon.name}`;
      return t.args.length ? `(${c} ${t.args.map(typeKey).join(' ')})` : c;
    }
    case 'syn':
      return `(syn ${t.tysyn.packageId}:${t.tysyn.module}:${t.tysyn.name} ${t.args.map(typeKey).join(' ')})`;
    case 'builtin':
      return t.args.length ? `(${t.builtin} ${t.args.map(typeKey).join(' ')})` : t.builtin;
    case 'forall':
      return `(forall ${t.vars.map((v) => v.name).join(' ')}. ${typeKey(t.body)})`;
    case 'struct':
      return `<${t.fields.map((f) => `${f.field}: ${typeKey(f.type)}`).join(', ')}>`;
    case 'nat':
      return String(t.value);
    case 'tapp':
      return `(${typeKey(t.lhs)} ${typeKey(t.rhs)})`;
  }
}

/** Thrown (inside the interpreter only) when comparing values that are not comparable. */
export class NotComparable extends Error {}

const cmpPrim = <T extends string | number | bigint | boolean>(a: T, b: T) => (a < b ? -1 : a > b ? 1 : 0);
const idKey = (id: TypeConId) => `${id.packageId}:${id.module}:${id.name}`;

/**
 * Total order over comparable values (Canton `svalue/Ordering.scala`); equality is `compare(a, b) === 0`.
 * Iterative: nested lists and records are walked with an explicit work list.
 */
export function compareValues(a0: SValue, b0: SValue): number {
  const work: (SValue | readonly [SValue, SValue])[] = [];
  const pairs: [SValue, SValue][] = [[a0, b0]];
  void work;
  while (pairs.length) {
    const [a, b] = pairs.pop()!;
    const r = compareShallow(a, b, pairs);
    if (r !== 0) return r;
  }
  return 0;
}

/** Compares the heads of a and b; pushes the children to compare next (in reverse order, as a stack). */
function compareShallow(a: SValue, b: SValue, todo: [SValue, SValue][]): number {
  if (a.t !== b.t) {
    if (isFunction(a) || isFunction(b)) throw new NotComparable('functions are not comparable');
    return cmpPrim(a.t, b.t);
  }
  switch (a.t) {
    case 'unit':
      return 0;
    case 'bool':
      return cmpPrim(a.v, (b as typeof a).v);
    case 'int64':
      return cmpPrim(a.v, (b as typeof a).v);
    case 'timestamp':
      return cmpPrim(a.v, (b as typeof a).v);
    case 'date':
      return cmpPrim(a.v, (b as typeof a).v);
    case 'numeric':
    case 'bignumeric':
      return compareNum(a.v, (b as typeof a).v);
    case 'text':
      return compareText(a.v, (b as typeof a).v);
    case 'party':
    case 'cid':
      return cmpPrim(a.v, (b as typeof a).v);
    case 'roundingMode':
      return cmpPrim(a.v, (b as typeof a).v);
    case 'list': {
      // Compare element-wise: expand into a sequence of pairs, then the lengths.
      const xs = listToArray(a.v);
      const ys = listToArray((b as typeof a).v);
      const n = Math.min(xs.length, ys.length);
      todo.push([int64(BigInt(xs.length)), int64(BigInt(ys.length))]);
      for (let i = n - 1; i >= 0; i--) todo.push([xs[i], ys[i]]);
      return 0;
    }
    case 'optional': {
      const y = (b as typeof a).v;
      if (a.v === null) return y === null ? 0 : -1;
      if (y === null) return 1;
      todo.push([a.v, y]);
      return 0;
    }
    case 'textmap': {
      const xs = mapEntries(a.v);
      const ys = mapEntries((b as typeof a).v);
      const n = Math.min(xs.length, ys.length);
      todo.push([int64(BigInt(xs.length)), int64(BigInt(ys.length))]);
      for (let i = n - 1; i >= 0; i--) {
        todo.push([xs[i][1], ys[i][1]]);
        todo.push([text(xs[i][0]), text(ys[i][0])]);
      }
      return 0;
    }
    case 'genmap': {
      const xs = mapEntries(a.v);
      const ys = mapEntries((b as typeof a).v);
      const n = Math.min(xs.length, ys.length);
      todo.push([int64(BigInt(xs.length)), int64(BigInt(ys.length))]);
      for (let i = n - 1; i >= 0; i--) {
        todo.push([xs[i][1], ys[i][1]]);
        todo.push([xs[i][0], ys[i][0]]);
      }
      return 0;
    }
    case 'record':
    case 'struct': {
      const ys = (b as typeof a).v;
      for (let i = Math.min(a.v.length, ys.length) - 1; i >= 0; i--) todo.push([a.v[i], ys[i]]);
      return a.t === 'record' ? cmpPrim(idKey(a.id), idKey((b as typeof a).id)) : 0;
    }
    case 'variant': {
      const y = b as typeof a;
      if (a.rank !== y.rank) return a.rank - y.rank;
      if (a.con !== y.con) return cmpPrim(a.con, y.con);
      todo.push([a.v, y.v]);
      return 0;
    }
    case 'enum': {
      const y = b as typeof a;
      return a.rank !== y.rank ? a.rank - y.rank : cmpPrim(a.con, y.con);
    }
    case 'any': {
      const y = b as typeof a;
      const c = cmpPrim(typeKey(a.ty), typeKey(y.ty));
      if (c !== 0) return c;
      todo.push([a.v, y.v]);
      return 0;
    }
    case 'typerep':
      return cmpPrim(typeKey(a.ty), typeKey((b as typeof a).ty));
    default:
      throw new NotComparable('functions are not comparable');
  }
}

const isFunction = (v: SValue) => v.t === 'closure' || v.t === 'pap' || v.t === 'builtin' || v.t === 'update';

/** Canton's `SMap.comparable`: GenMap keys must not contain functions (or updates). */
export function checkComparable(v0: SValue): void {
  const todo: SValue[] = [v0];
  while (todo.length) {
    const v = todo.pop()!;
    switch (v.t) {
      case 'closure':
      case 'pap':
      case 'builtin':
      case 'update':
        throw new NotComparable('functions are not comparable');
      case 'list':
        for (let c = v.v; c; c = c.tl) todo.push(c.h);
        break;
      case 'optional':
        if (v.v) todo.push(v.v);
        break;
      case 'textmap':
        mapForEach(v.v, (_, x) => todo.push(x));
        break;
      case 'genmap':
        mapForEach(v.v, (k, x) => todo.push(k, x));
        break;
      case 'record':
      case 'struct':
        todo.push(...v.v);
        break;
      case 'variant':
      case 'any':
        todo.push(v.v);
        break;
      default:
        break;
    }
  }
}

export const equalValues = (a: SValue, b: SValue) => compareValues(a, b) === 0;
