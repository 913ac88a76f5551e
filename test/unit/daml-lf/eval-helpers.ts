import {
  Interpreter,
  CompiledPackages,
  mapEntries,
  type Expr,
  type Package,
  type SValue,
  type RunResult,
} from '@ledgerline/daml-lf';

export function interp(...pkgs: Package[]): Interpreter {
  return new Interpreter(new CompiledPackages(pkgs));
}

/** Evaluates; returns the value, or throws an assertion-friendly error describing the failure. */
export function evalOk(e: Expr, i: Interpreter = interp()): SValue {
  const r = i.evaluate(e);
  if (r.tag !== 'done')
    throw new Error(`expected a value, got ${JSON.stringify(r, (_, x) => (typeof x === 'bigint' ? x.toString() : x))}`);
  return r.value;
}

export function evalResult(e: Expr, i: Interpreter = interp()): RunResult {
  return i.evaluate(e);
}

/** A compact rendering of runtime values for assertions. */
export function show(v: SValue): unknown {
  switch (v.t) {
    case 'unit':
      return '()';
    case 'bool':
      return v.v;
    case 'int64':
      return v.v;
    case 'numeric':
    case 'bignumeric': {
      const s = v.v.s;
      const neg = v.v.u < 0n;
      let d = (neg ? -v.v.u : v.v.u).toString();
      if (s <= 0) return (neg ? '-' : '') + d + '0'.repeat(-s) + '.';
      d = d.padStart(s + 1, '0');
      return (neg ? '-' : '') + d.slice(0, d.length - s) + '.' + d.slice(d.length - s);
    }
    case 'text':
    case 'party':
    case 'cid':
      return v.v;
    case 'date':
    case 'timestamp':
      return v.v;
    case 'list': {
      const out: unknown[] = [];
      for (let c = v.v; c; c = c.tl) out.push(show(c.h));
      return out;
    }
    case 'optional':
      return v.v === null ? null : { some: show(v.v) };
    case 'record':
      return Object.fromEntries(v.f.map((f, i) => [f, show(v.v[i])]));
    case 'struct':
      return Object.fromEntries(v.f.map((f, i) => [f, show(v.v[i])]));
    case 'variant':
      return { [v.con]: show(v.v) };
    case 'enum':
      return v.con;
    case 'textmap':
      return Object.fromEntries(mapEntries(v.v).map(([k, x]) => [k, show(x)]));
    case 'genmap':
      return mapEntries(v.v).map(([k, x]) => [show(k), show(x)]);
    default:
      return `<${v.t}>`;
  }
}
