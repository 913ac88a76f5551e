/**
 * Compiles AST expressions into `Code` once (per definition, on first use): variables become de Bruijn indices, type
 * abstractions and applications are erased (Numeric scales travel as witness values, as in LF 2), record and variant
 * constructors resolve their data types (variant ranks for ordering).
 */
import type { CaseAlt, Expr, RoundingMode, TypeConId, Update } from '../language/ast';
import { BUILTINS } from './builtins';
import { Op, type Alt, type Code, type MachineOps, type PrimFn, type UpdateCode } from './code';
import { DamlThrow, Failure, internal } from './errors';
import { contractDoesNotImplementRequiringInterface, wronglyTypedContract } from './contract-errors';
import { CONS_BYTES, RECORD_BYTES } from './memory';
import { fromLiteral } from './numeric';
import type { CompiledPackages } from './packages';
import type { SValue } from './values';
import { FALSE, NIL, NONE, TRUE, UNIT, some, typeKey } from './values';

/** Compile-time scope: the names bound so far, innermost first. */
export type Scope = { readonly name: string; readonly n: Scope } | null;

export const pushScope = (s: Scope, ...names: string[]): Scope =>
  names.reduce<Scope>((acc, name) => ({ name, n: acc }), s);

const ROUNDING: readonly RoundingMode[] = [
  'UP',
  'DOWN',
  'CEILING',
  'FLOOR',
  'HALF_UP',
  'HALF_DOWN',
  'HALF_EVEN',
  'UNNECESSARY',
];
const FAILURE_CATEGORY = {
  INVALID_INDEPENDENT_OF_SYSTEM_STATE: 8n,
  INVALID_GIVEN_CURRENT_SYSTEM_STATE_OTHER: 9n,
} as const;

const c = (v: SValue): Code => ({ op: Op.Const, v });

/** The machine a nullary builtin runs on: none, it is evaluated once at compile time (the empty maps need none). */
const noMachine = (): never => {
  throw internal('a nullary builtin is evaluated at compile time, with no machine');
};
const COMPILE_TIME: MachineOps = {
  isUpdateMachine: false,
  charge: () => undefined,
  trace: noMachine,
  evalIn: noMachine,
  foldl: noMachine,
  foldr: noMachine,
  equalList: noMachine,
  exceptionMessage: noMachine,
};
const prim = (args: readonly Code[], f: PrimFn): Code => ({ op: Op.Prim, args, f });
const idStr = (id: TypeConId) => `${id.packageId}:${id.module}:${id.name}`;
const contractIdOf = (v: SValue): string => {
  if (v.t !== 'cid') throw internal(`expected a contract id, got ${v.t}`);
  return v.v;
};

export class Compiler {
  constructor(private readonly pkgs: CompiledPackages) {}

  /** Compiles a closed expression, or one whose free variables are `scope`. */
  compile(e: Expr, scope: Scope = null): Code {
    return this.expr(e, scope);
  }

  private index(scope: Scope, name: string): number {
    let i = 0;
    for (let s = scope; s; s = s.n, i++) if (s.name === name) return i;
    throw internal(`unbound variable ${name}`);
  }

  private variantRank(id: TypeConId, con: string): number {
    const dt = this.pkgs.dataType(id);
    if (dt.cons.tag === 'variant') return dt.cons.constructors.findIndex((f) => f.field === con);
    if (dt.cons.tag === 'enum') return dt.cons.constructors.indexOf(con);
    throw internal(`${idStr(id)} is not a variant or enum`);
  }

  private expr(e: Expr, s: Scope): Code {
    switch (e.tag) {
      case 'var':
        return { op: Op.Var, i: this.index(s, e.name) };
      case 'val':
        return { op: Op.Val, d: this.pkgs.defRef(e.ref) };
      case 'builtin': {
        const b = BUILTINS[e.fn];
        if (!b)
          return prim([], () => {
            throw internal(`builtin ${e.fn} is not supported`);
          });
        if (b.arity === 0) return c(b.run([], COMPILE_TIME)!);
        return c({ t: 'builtin', b });
      }
      case 'builtinCon':
        return c(e.con === 'UNIT' ? UNIT : e.con === 'TRUE' ? TRUE : FALSE);
      case 'lit':
        switch (e.lit.tag) {
          case 'int64':
            return c({ t: 'int64', v: e.lit.value });
          case 'numeric':
            return c({ t: 'numeric', v: fromLiteral(e.lit.value) });
          case 'text':
            return c({ t: 'text', v: e.lit.value });
          case 'timestamp':
            return c({ t: 'timestamp', v: e.lit.value });
          case 'date':
            return c({ t: 'date', v: e.lit.value });
          case 'roundingMode':
            return c({ t: 'int64', v: BigInt(ROUNDING.indexOf(e.lit.value)) });
          case 'failureCategory':
            return c({ t: 'int64', v: FAILURE_CATEGORY[e.lit.value] });
        }
        break;
      case 'recCon': {
        const id = e.tycon.tycon;
        const f = e.fields.map((x) => x.field);
        return prim(
          e.fields.map((x) => this.expr(x.expr, s)),
          (v, m) => {
            m.charge(RECORD_BYTES + 8 * v.length);
            return { t: 'record', id, f, v };
          },
        );
      }
      case 'recProj': {
        const field = e.field;
        let idx = -1;
        return prim([this.expr(e.record, s)], ([r]) => {
          if (r.t !== 'record') throw internal(`record projection .${field} on ${r.t}`);
          if (r.f[idx] !== field) idx = r.f.indexOf(field);
          if (idx < 0) throw internal(`record ${idStr(r.id)} has no field ${field}`);
          return r.v[idx];
        });
      }
      case 'recUpd': {
        const field = e.field;
        return prim([this.expr(e.record, s), this.expr(e.update, s)], ([r, x], m) => {
          if (r.t !== 'record') throw internal(`record update .${field} on ${r.t}`);
          m.charge(RECORD_BYTES + 8 * r.v.length);
          const i = r.f.indexOf(field);
          if (i < 0) throw internal(`record ${idStr(r.id)} has no field ${field}`);
          const v = r.v.slice();
          v[i] = x;
          return { t: 'record', id: r.id, f: r.f, v };
        });
      }
      case 'variantCon': {
        const id = e.tycon.tycon;
        const con = e.variant;
        const rank = this.variantRank(id, con);
        return prim([this.expr(e.arg, s)], ([v], m) => {
          m.charge(RECORD_BYTES);
          return { t: 'variant', id, con, rank, v };
        });
      }
      case 'enumCon':
        return c({ t: 'enum', id: e.tycon, con: e.constructor, rank: this.variantRank(e.tycon, e.constructor) });
      case 'structCon': {
        const names = e.fields.map((x) => x.field);
        const order = names.map((_, i) => i).sort((a, b) => (names[a] < names[b] ? -1 : names[a] > names[b] ? 1 : 0));
        const f = order.map((i) => names[i]);
        return prim(
          e.fields.map((x) => this.expr(x.expr, s)),
          (v, m) => {
            m.charge(RECORD_BYTES + 8 * v.length);
            return { t: 'struct', f, v: order.map((i) => v[i]) };
          },
        );
      }
      case 'structProj': {
        const field = e.field;
        return prim([this.expr(e.struct, s)], ([st]) => {
          if (st.t !== 'struct') throw internal(`struct projection .${field} on ${st.t}`);
          const i = st.f.indexOf(field);
          if (i < 0) throw internal(`struct has no field ${field}`);
          return st.v[i];
        });
      }
      case 'structUpd': {
        const field = e.field;
        return prim([this.expr(e.struct, s), this.expr(e.update, s)], ([st, x], m) => {
          if (st.t !== 'struct') throw internal(`struct update .${field} on ${st.t}`);
          m.charge(RECORD_BYTES + 8 * st.v.length);
          const i = st.f.indexOf(field);
          if (i < 0) throw internal(`struct has no field ${field}`);
          const v = st.v.slice();
          v[i] = x;
          return { t: 'struct', f: st.f, v };
        });
      }
      case 'app':
        return { op: Op.App, fn: this.expr(e.fun, s), args: e.args.map((a) => this.expr(a, s)) };
      case 'tyApp':
        return this.expr(e.expr, s);
      case 'tyAbs':
        return this.expr(e.body, s);
      case 'abs':
        return {
          op: Op.Abs,
          arity: e.params.length,
          body: this.expr(e.body, pushScope(s, ...e.params.map((p) => p.name))),
        };
      case 'case':
        return { op: Op.Case, scrut: this.expr(e.scrut, s), alts: e.alts.map((a) => this.alt(a, s)) };
      case 'let': {
        // Sequential bindings: each sees the previous ones.
        const build = (i: number, sc: Scope): Code => {
          if (i === e.bindings.length) return this.expr(e.body, sc);
          const b = e.bindings[i];
          return { op: Op.Let, bound: this.expr(b.bound, sc), body: build(i + 1, pushScope(sc, b.binder.name)) };
        };
        return build(0, s);
      }
      case 'nil':
        return c(NIL);
      case 'cons':
        return prim([...e.front.map((x) => this.expr(x, s)), this.expr(e.tail, s)], (v, m) => {
          const tail = v[v.length - 1];
          if (tail.t !== 'list') throw internal('cons onto a non-list');
          m.charge(CONS_BYTES * (v.length - 1) + CONS_BYTES);
          let l = tail.v;
          for (let i = v.length - 2; i >= 0; i--) l = { h: v[i], tl: l };
          return { t: 'list', v: l };
        });
      case 'none':
        return c(NONE);
      case 'some':
        return prim([this.expr(e.value, s)], ([v]) => some(v));
      case 'toAny':
      case 'toAnyException': {
        const ty = e.type;
        return prim([this.expr(e.expr, s)], ([v]) => ({ t: 'any', ty, v }));
      }
      case 'fromAny':
      case 'fromAnyException': {
        const k = typeKey(e.type);
        return prim([this.expr(e.expr, s)], ([a]) => {
          if (a.t !== 'any') throw internal(`fromAny on ${a.t}`);
          return typeKey(a.ty) === k ? some(a.v) : NONE;
        });
      }
      case 'typeRep':
        return c({ t: 'typerep', ty: e.type });
      case 'throw':
        return prim([this.expr(e.exception, s)], ([v]) => {
          throw new DamlThrow({ t: 'any', ty: e.exceptionType, v });
        });
      case 'toInterface': {
        // An interface value is the template's record wrapped as Any (Speedy's SAny(TTyCon(template), record)).
        return prim([this.expr(e.expr, s)], ([v]) => {
          if (v.t !== 'record') throw internal('toInterface of a non-record');
          return { t: 'any', ty: { tag: 'con', tycon: v.id, args: [] }, v };
        });
      }
      case 'fromInterface': {
        const want = idStr(e.template);
        return prim([this.expr(e.expr, s)], ([a]) =>
          a.t === 'any' && a.v.t === 'record' && idStr(a.v.id) === want ? some(a.v) : NONE,
        );
      }
      case 'unsafeFromInterface': {
        const want = idStr(e.template);
        return prim([this.expr(e.contractId, s), this.expr(e.expr, s)], ([cid, a]) => {
          if (a.t !== 'any' || a.v.t !== 'record') throw internal('unsafe_from_interface of a non-interface value');
          if (idStr(a.v.id) === want) return a.v;
          throw wronglyTypedContract(contractIdOf(cid), e.template, a.v.id);
        });
      }
      case 'toRequiredInterface':
        return this.expr(e.expr, s);
      case 'fromRequiredInterface':
        return prim([this.expr(e.expr, s)], ([a]) => (this.implementsIface(a, e.requiring) ? some(a) : NONE));
      case 'unsafeFromRequiredInterface':
        return prim([this.expr(e.contractId, s), this.expr(e.expr, s)], ([cid, a]) => {
          if (a.t !== 'any' || a.v.t !== 'record')
            throw internal('unsafe_from_required_interface of a non-interface value');
          if (this.implementsIface(a, e.requiring)) return a;
          throw contractDoesNotImplementRequiringInterface(e.requiring, e.required, contractIdOf(cid), a.v.id);
        });
      case 'callInterface':
        return this.interfaceCall(this.expr(e.expr, s), e.iface, (impl) => {
          const m = impl.body.methods.get(e.method);
          if (!m) throw internal(`method ${e.method} of ${idStr(e.iface)} not implemented`);
          return m;
        });
      case 'viewInterface':
        return this.interfaceCall(this.expr(e.expr, s), e.iface, (impl) => impl.body.view);
      case 'signatoryInterface':
        return this.templatePart(this.expr(e.expr, s), (t) => t.signatories);
      case 'observerInterface':
        return this.templatePart(this.expr(e.expr, s), (t) => t.observers);
      case 'interfaceTemplateTypeRep':
        return prim([this.expr(e.expr, s)], ([a]) => {
          if (a.t !== 'any' || a.v.t !== 'record') throw internal('interfaceTemplateTypeRep of a non-interface value');
          return { t: 'typerep', ty: { tag: 'con', tycon: a.v.id, args: [] } };
        });
      case 'choiceController':
      case 'choiceObserver': {
        const tpl = this.pkgs.template(e.template);
        const ch = tpl.choices.get(e.choice);
        if (!ch) throw internal(`choice ${e.choice} not found`);
        const body = e.tag === 'choiceController' ? ch.controllers : ch.observers;
        if (!body) return prim([this.expr(e.contract, s), this.expr(e.choiceArg, s)], () => NIL);
        const code = this.expr(body, pushScope(null, tpl.param, ch.argBinder.name));
        return {
          op: Op.App,
          fn: { op: Op.Abs, arity: 2, body: code },
          args: [this.expr(e.contract, s), this.expr(e.choiceArg, s)],
        };
      }
      case 'experimental':
        return prim([], () => {
          throw new Failure({ tag: 'UserError', message: `experimental ${e.name} not supported.` });
        });
      case 'update':
        return { op: Op.Upd, u: this.update(e.update, s) };
      case 'located':
        return this.expr(e.expr, s);
    }
    throw internal(`cannot compile expression ${(e as Expr).tag}`);
  }

  private implementsIface(a: SValue, iface: TypeConId): boolean {
    if (a.t !== 'any' || a.v.t !== 'record') return false;
    const t = this.pkgs.findTemplate(a.v.id);
    return !!t && t.implements.has(idStr(iface));
  }

  /** `body` of the template's interface instance, applied to the template record (bound to the template's param). */
  private interfaceCall(
    arg: Code,
    iface: TypeConId,
    pick: (impl: NonNullable<ReturnType<typeof this.findImpl>>) => Expr,
  ): Code {
    const cache = new Map<string, Code>();
    return prim([arg], ([a], m) => {
      if (a.t !== 'any' || a.v.t !== 'record') throw internal('interface call on a non-interface value');
      const tid = idStr(a.v.id);
      let code = cache.get(tid);
      if (!code) {
        const impl = this.findImpl(a.v.id, iface);
        if (!impl) throw internal(`template ${tid} does not implement ${idStr(iface)}`);
        code = this.expr(pick(impl), pushScope(null, this.pkgs.template(a.v.id).param));
        cache.set(tid, code);
      }
      m.evalIn(code, { v: a.v, n: null });
      return undefined;
    });
  }

  findImpl(template: TypeConId, iface: TypeConId) {
    return this.pkgs.findTemplate(template)?.implements.get(idStr(iface));
  }

  private templatePart(arg: Code, pick: (t: ReturnType<CompiledPackages['template']>) => Expr): Code {
    const cache = new Map<string, Code>();
    return prim([arg], ([a], m) => {
      if (a.t !== 'any' || a.v.t !== 'record') throw internal('interface value expected');
      const tid = idStr(a.v.id);
      let code = cache.get(tid);
      if (!code) {
        const t = this.pkgs.template(a.v.id);
        code = this.expr(pick(t), pushScope(null, t.param));
        cache.set(tid, code);
      }
      m.evalIn(code, { v: a.v, n: null });
      return undefined;
    });
  }

  private alt(a: CaseAlt, s: Scope): Alt {
    const p = a.pattern;
    switch (p.tag) {
      case 'default':
        return { k: 'default', body: this.expr(a.body, s) };
      case 'variant':
        return { k: 'variant', con: p.variant, body: this.expr(a.body, pushScope(s, p.binder)) };
      case 'enum':
        return { k: 'enum', con: p.constructor, body: this.expr(a.body, s) };
      case 'builtinCon':
        return p.con === 'UNIT'
          ? { k: 'unit', body: this.expr(a.body, s) }
          : { k: 'bool', v: p.con === 'TRUE', body: this.expr(a.body, s) };
      case 'nil':
        return { k: 'nil', body: this.expr(a.body, s) };
      case 'cons':
        return { k: 'cons', body: this.expr(a.body, pushScope(s, p.head, p.tail)) };
      case 'none':
        return { k: 'none', body: this.expr(a.body, s) };
      case 'some':
        return { k: 'some', body: this.expr(a.body, pushScope(s, p.binder)) };
    }
  }

  private update(u: Update, s: Scope): UpdateCode {
    switch (u.tag) {
      case 'pure':
        return { op: 'pure', e: this.expr(u.expr, s) };
      case 'block': {
        const binds: Code[] = [];
        let sc = s;
        for (const b of u.bindings) {
          binds.push(this.expr(b.bound, sc));
          sc = pushScope(sc, b.binder.name);
        }
        return { op: 'block', binds, body: this.expr(u.body, sc) };
      }
      case 'embedExpr':
        return { op: 'embed', e: this.expr(u.body, s) };
      case 'create':
        return { op: 'create', template: u.template, arg: this.expr(u.expr, s) };
      case 'createInterface':
        return { op: 'createInterface', iface: u.iface, arg: this.expr(u.expr, s) };
      case 'exercise':
        return {
          op: 'exercise',
          template: u.template,
          choice: u.choice,
          cid: this.expr(u.cid, s),
          arg: this.expr(u.arg, s),
        };
      case 'exerciseInterface':
        return {
          op: 'exerciseInterface',
          iface: u.iface,
          choice: u.choice,
          cid: this.expr(u.cid, s),
          arg: this.expr(u.arg, s),
          guard: u.guard && this.expr(u.guard, s),
        };
      case 'fetch':
        return { op: 'fetch', template: u.template, cid: this.expr(u.cid, s) };
      case 'fetchInterface':
        return { op: 'fetchInterface', iface: u.iface, cid: this.expr(u.cid, s) };
      case 'getTime':
        return { op: 'getTime' };
      case 'ledgerTimeLt':
        return { op: 'ledgerTimeLt', e: this.expr(u.expr, s) };
      case 'tryCatch':
        return {
          op: 'tryCatch',
          body: this.expr(u.tryExpr, s),
          handler: this.expr(u.catchExpr, pushScope(s, u.binder)),
        };
      case 'exerciseByKey':
      case 'fetchByKey':
      case 'queryNByKey':
        return { op: 'unsupported', what: `${u.tag} (contract keys)` };
    }
  }
}
