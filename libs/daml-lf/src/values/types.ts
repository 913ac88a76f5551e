/**
 * Serializable types as the value codecs see them: synonyms expanded, type applications flattened, data-type parameters
 * substituted, so each step of a codec looks at one constructor.
 */
import type { DataCons, Type, TypeConId } from '../language/ast';
import type { CompiledPackages } from '../interpreter/packages';

export type Subst = ReadonlyMap<string, Type>;
const EMPTY: Subst = new Map();

/** Head-normal form of a type. */
export type TypeView =
  | {
      readonly k: 'builtin';
      readonly builtin: Extract<Type, { tag: 'builtin' }>['builtin'];
      readonly args: readonly Type[];
    }
  | {
      readonly k: 'con';
      readonly id: TypeConId;
      readonly args: readonly Type[];
      readonly cons: DataCons;
      readonly params: readonly string[];
    }
  | { readonly k: 'nat'; readonly value: number }
  | { readonly k: 'other'; readonly type: Type };

export class TypeViewError extends Error {
  override name = 'TypeViewError';
}

function substitute(t: Type, s: Subst): Type {
  if (s.size === 0) return t;
  switch (t.tag) {
    case 'var': {
      const r = s.get(t.name);
      if (!r) return t;
      return t.args.length ? t.args.reduce<Type>((lhs, a) => ({ tag: 'tapp', lhs, rhs: substitute(a, s) }), r) : r;
    }
    case 'con':
      return { ...t, args: t.args.map((a) => substitute(a, s)) };
    case 'syn':
      return { ...t, args: t.args.map((a) => substitute(a, s)) };
    case 'builtin':
      return { ...t, args: t.args.map((a) => substitute(a, s)) };
    case 'struct':
      return { tag: 'struct', fields: t.fields.map((f) => ({ field: f.field, type: substitute(f.type, s) })) };
    case 'tapp':
      return { tag: 'tapp', lhs: substitute(t.lhs, s), rhs: substitute(t.rhs, s) };
    default:
      return t;
  }
}

export function viewType(pkgs: CompiledPackages, t0: Type): TypeView {
  let t = t0;
  const extra: Type[] = [];
  for (let guard = 0; guard < 1000; guard++) {
    switch (t.tag) {
      case 'tapp':
        extra.unshift(t.rhs);
        t = t.lhs;
        continue;
      case 'syn': {
        const m = pkgs.module(t.tysyn.packageId, t.tysyn.module);
        const def = m.synonyms.get(t.tysyn.name);
        if (!def) throw new TypeViewError(`unknown type synonym ${t.tysyn.module}:${t.tysyn.name}`);
        const args = [...t.args, ...extra.splice(0)];
        const s = new Map(def.params.map((p, i) => [p.name, args[i]] as const));
        t = substitute(def.type, s);
        if (args.length > def.params.length) extra.push(...args.slice(def.params.length));
        continue;
      }
      case 'builtin':
        return { k: 'builtin', builtin: t.builtin, args: [...t.args, ...extra] };
      case 'con': {
        const dt = pkgs.dataType(t.tycon);
        return {
          k: 'con',
          id: t.tycon,
          args: [...t.args, ...extra],
          cons: dt.cons,
          params: dt.params.map((p) => p.name),
        };
      }
      case 'nat':
        return { k: 'nat', value: t.value };
      default:
        return { k: 'other', type: t };
    }
  }
  throw new TypeViewError('type synonyms nest too deeply');
}

/** The field/constructor types of a data type instance, parameters substituted. */
export function instantiate(v: Extract<TypeView, { k: 'con' }>, t: Type): Type {
  if (v.params.length === 0) return t;
  return substitute(t, new Map(v.params.map((p, i) => [p, v.args[i]] as const)));
}

export { EMPTY as EMPTY_SUBST };
