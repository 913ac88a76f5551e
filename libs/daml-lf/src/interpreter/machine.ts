/**
 * The evaluator: a CEK-style machine with an explicit continuation stack, so neither deep recursion in Daml code nor
 * long lists use the JavaScript stack. Updates run in the same loop; their effects (create, exercise, fetch, time) are
 * delegated to `UpdateEffects` (the transaction layer), which may suspend the machine with a question and resume it.
 */
import type { Type, TypeConId } from '../language/ast';
import {
  Op,
  extend,
  type Alt,
  type Code,
  type Cons,
  type DefRef,
  type Env,
  type MachineOps,
  type SValue,
  type UpdateCode,
} from './code';
import type { Compiler } from './compiler';
import { ARITHMETIC_ERROR, DamlThrow, Failure, internal, type InterpretationError } from './errors';
import { DEFAULT_MAX_MEMORY_BYTES } from './memory';
import type { CompiledPackages } from './packages';
import { NotComparable } from './values';

/** What a suspended machine waits for; `resume` is called with the answer before `run()` is called again. */
export interface Suspension<Q = unknown> {
  readonly question: Q;
  readonly resume: (answer: unknown) => void;
}

export type RunResult<Q = unknown> =
  | { readonly tag: 'done'; readonly value: SValue }
  | { readonly tag: 'error'; readonly error: InterpretationError }
  | { readonly tag: 'question'; readonly suspension: Suspension<Q> }
  /** `stepsBetweenInterruptions` steps ran: `run()` again goes on (the caller may look at the clock or yield first). */
  | { readonly tag: 'interrupted' };

/** The ledger side of updates. Each method sets the machine's next state (usually `m.returnValue`). */
export interface UpdateEffects {
  create(m: Machine, template: TypeConId, arg: SValue): void;
  exercise(m: Machine, template: TypeConId, choice: string, cid: SValue, arg: SValue): void;
  exerciseInterface(
    m: Machine,
    iface: TypeConId,
    choice: string,
    cid: SValue,
    arg: SValue,
    guard: SValue | undefined,
  ): void;
  fetch(m: Machine, template: TypeConId, cid: SValue): void;
  fetchInterface(m: Machine, iface: TypeConId, cid: SValue): void;
  getTime(m: Machine): void;
  ledgerTimeLt(m: Machine, time: bigint): void;
  /** A try block starts / ends normally / is rolled back by a caught exception. */
  beginTry(): unknown;
  endTry(token: unknown): void;
  rollbackTry(token: unknown): void;
}

const enum K {
  App,
  Prim,
  Let,
  Case,
  Store,
  Apply,
  RunUpd,
  Block,
  Hook,
  Catch,
  Handler,
  Foldl,
  Foldr,
  EqList,
  Unhandled,
  /** Exceptions may not cross it: one thrown below is unhandled, whatever handlers lie above (Canton `KPreventException`). */
  NoCatch,
}

type Frame =
  | { k: K.App; node: Extract<Code, { op: Op.App }>; env: Env; fn: SValue | null; vals: SValue[] }
  | { k: K.Prim; node: Extract<Code, { op: Op.Prim }>; env: Env; vals: SValue[] }
  | { k: K.Let; body: Code; env: Env }
  | { k: K.Case; alts: readonly Alt[]; env: Env }
  | { k: K.Store; d: DefRef }
  | { k: K.Apply; args: readonly SValue[] }
  | { k: K.RunUpd }
  | { k: K.Block; u: Extract<UpdateCode, { op: 'block' }>; env: Env; i: number }
  | { k: K.Hook; fn: (v: SValue) => void }
  | { k: K.Catch; handler: Code; env: Env; token: unknown }
  | { k: K.Handler; exc: Extract<SValue, { t: 'any' }> }
  | { k: K.Foldl; f: SValue; l: Cons | null }
  | { k: K.Foldr; f: SValue; arr: SValue[]; i: number }
  | { k: K.EqList; f: SValue; xs: Cons | null; ys: Cons | null }
  | { k: K.Unhandled; exc: Extract<SValue, { t: 'any' }> }
  | { k: K.NoCatch };

const enum Mode {
  Eval,
  Return,
  Update,
}

export interface MachineOptions {
  /** Effects of updates; without them running an update effect fails (pure evaluation). */
  readonly effects?: UpdateEffects;
  /** Bound on machine steps (INTERPRETATION_TIME_EXCEEDED); default 50 million. */
  readonly maxSteps?: number;
  /** Called with each TRACE message as it is evaluated (interleaved with the machine's questions). */
  readonly onTrace?: (message: string) => void;
  /** Bound on the bytes builtins and constructors build (estimated, `memory.ts`; MemoryExceeded); default 256 MiB. */
  readonly maxMemoryBytes?: number;
  /** `run()` returns `interrupted` after every this many steps (Canton's `iterationsBetweenInterruptions`); default never. */
  readonly stepsBetweenInterruptions?: number;
}

export class Machine implements MachineOps {
  private mode = Mode.Return;
  private code: Code = { op: Op.Const, v: { t: 'unit' } };
  private env: Env = null;
  private value: SValue = { t: 'unit' };
  private upd: UpdateCode | null = null;
  private updEnv: Env = null;
  private readonly stack: Frame[] = [];
  private pending: Suspension | null = null;
  private steps = 0;
  private readonly maxSteps: number;
  private readonly interruptEvery: number;
  private readonly maxMemory: number;
  /** Bytes charged so far. */
  private allocated = 0;
  private unhandled = false;
  readonly effects: UpdateEffects | undefined;
  /** TRACE messages, in order. */
  readonly traces: string[] = [];
  private readonly onTrace: ((message: string) => void) | undefined;

  constructor(
    readonly packages: CompiledPackages,
    readonly compiler: Compiler,
    options: MachineOptions = {},
  ) {
    this.effects = options.effects;
    this.maxSteps = options.maxSteps ?? 50_000_000;
    this.interruptEvery = options.stepsBetweenInterruptions ?? 0;
    this.maxMemory = options.maxMemoryBytes ?? DEFAULT_MAX_MEMORY_BYTES;
    this.onTrace = options.onTrace;
  }

  /** The steps run so far. */
  get executedSteps(): number {
    return this.steps;
  }

  charge(bytes: number): void {
    this.allocated += bytes;
    if (this.allocated > this.maxMemory) throw new Failure({ tag: 'MemoryExceeded', bytes: this.maxMemory });
  }

  /** Bytes charged to the memory budget so far. */
  get allocatedBytes(): number {
    return this.allocated;
  }

  trace(message: string): void {
    this.traces.push(message);
    this.onTrace?.(message);
  }

  /** True when effects are present (CONTRACT_ID_TO_TEXT answers None then, as on Canton's update machine). */
  get isUpdateMachine(): boolean {
    return this.effects !== undefined;
  }

  // ------------------------------------------------------------------------------------------- state transitions (API)

  evalIn(code: Code, env: Env): void {
    this.mode = Mode.Eval;
    this.code = code;
    this.env = env;
  }

  returnValue(v: SValue): void {
    this.mode = Mode.Return;
    this.value = v;
  }

  /** Run an Update value (the result of the update is returned). */
  runUpdate(v: SValue): void {
    if (v.t !== 'update') throw internal(`expected an update, got ${v.t}`);
    this.mode = Mode.Update;
    this.upd = v.u;
    this.updEnv = v.env;
  }

  /** Continue with `fn(value)` once the current computation returns a value. */
  andThen(fn: (v: SValue) => void): void {
    this.stack.push({ k: K.Hook, fn });
  }

  /**
   * Until the current computation returns, exceptions pass any enclosing try unhandled (Canton's `SEPreventCatch`: the
   * contract info of a fetched contract).
   */
  preventCatch(): void {
    this.stack.push({ k: K.NoCatch });
  }

  /** Evaluate `code` in `env`, then `fn(result)`. */
  evalThen(code: Code, env: Env, fn: (v: SValue) => void): void {
    this.andThen(fn);
    this.evalIn(code, env);
  }

  /** Evaluate `code` in `env` where no handler may catch an exception it throws (Canton `SEPreventCatch`), then `fn(result)`. */
  evalThenUncatchable(code: Code, env: Env, fn: (v: SValue) => void): void {
    this.andThen(fn);
    this.preventCatch();
    this.evalIn(code, env);
  }

  /** Apply a function value to arguments, then `fn(result)`. */
  applyThen(f: SValue, args: readonly SValue[], fn: (v: SValue) => void): void {
    this.andThen(fn);
    this.apply(f, args);
  }

  /** Suspend: `run()` returns the question; the answer handler sets the next state. */
  ask(question: unknown, onAnswer: (answer: unknown) => void): void {
    this.pending = {
      question,
      resume: (a) => {
        this.pending = null;
        try {
          onAnswer(a);
        } catch (e) {
          this.deferred = e;
        }
      },
    };
  }

  fail(error: InterpretationError): never {
    throw new Failure(error);
  }

  throwException(exc: Extract<SValue, { t: 'any' }>): never {
    throw new DamlThrow(exc);
  }

  foldl(f: SValue, z: SValue, l: Cons | null): void {
    this.stack.push({ k: K.Foldl, f, l });
    this.returnValue(z);
  }

  foldr(f: SValue, z: SValue, arr: SValue[]): void {
    this.stack.push({ k: K.Foldr, f, arr, i: arr.length - 1 });
    this.returnValue(z);
  }

  equalList(f: SValue, xs: Cons | null, ys: Cons | null): void {
    this.stack.push({ k: K.EqList, f, xs, ys });
    this.returnValue({ t: 'bool', v: true });
  }

  /** The message of an AnyException value, as ANY_EXCEPTION_MESSAGE computes it. */
  exceptionMessage(exc: Extract<SValue, { t: 'any' }>): void {
    const id = exceptionId(exc.ty);
    if (id && sameId(id, ARITHMETIC_ERROR) && exc.v.t === 'record') return this.returnValue(exc.v.v[0]);
    const def = id && this.packages.exception(id);
    if (!def) throw internal(`no exception definition for ${id ? `${id.module}:${id.name}` : 'a non-exception type'}`);
    const fn = this.compiler.compile(def.message);
    this.evalIn({ op: Op.App, fn, args: [{ op: Op.Const, v: exc.v }] }, null);
  }

  apply(f: SValue, args: readonly SValue[]): void {
    for (;;) {
      switch (f.t) {
        case 'closure':
          if (args.length === f.arity) return this.evalIn(f.body, extend(f.env, args));
          if (args.length < f.arity) return this.returnValue({ t: 'pap', fn: f, args });
          this.stack.push({ k: K.Apply, args: args.slice(f.arity) });
          return this.evalIn(f.body, extend(f.env, args.slice(0, f.arity)));
        case 'pap':
          args = [...f.args, ...args];
          f = f.fn;
          continue;
        case 'builtin': {
          const n = f.b.arity;
          if (args.length < n) return this.returnValue({ t: 'pap', fn: f, args });
          if (args.length > n) {
            this.stack.push({ k: K.Apply, args: args.slice(n) });
            args = args.slice(0, n);
          }
          const r = f.b.run(args, this);
          if (r !== undefined) this.returnValue(r);
          return;
        }
        default:
          throw internal(`cannot apply a ${f.t}`);
      }
    }
  }

  // ------------------------------------------------------------------------------------------------------------ run

  /** Start evaluating `code` (closed, or in `env`). */
  start(code: Code, env: Env = null): this {
    this.stack.length = 0;
    this.pending = null;
    this.unhandled = false;
    this.evalIn(code, env);
    return this;
  }

  /** Start from a state `init` sets (e.g. an effect called directly, as a command does). */
  startWith(init: (m: Machine) => void): this {
    this.stack.length = 0;
    this.pending = null;
    this.unhandled = false;
    this.returnValue({ t: 'unit' });
    try {
      init(this);
    } catch (e) {
      this.deferred = e;
    }
    return this;
  }

  private deferred: unknown = undefined;

  /** Start running an Update value. */
  startUpdate(v: SValue): this {
    this.stack.length = 0;
    this.pending = null;
    this.unhandled = false;
    this.runUpdate(v);
    return this;
  }

  run(): RunResult {
    for (;;) {
      try {
        if (this.deferred !== undefined) {
          const d = this.deferred;
          this.deferred = undefined;
          throw d;
        }
        return this.loop();
      } catch (e) {
        if (e instanceof DamlThrow) {
          const r = this.unwind(e.exception);
          if (r) return r;
          continue;
        }
        if (e instanceof Failure) return { tag: 'error', error: e.error };
        if (e instanceof NotComparable) return { tag: 'error', error: { tag: 'NonComparableValues' } };
        // Anything else is a bug or an ill-typed program: reported as an internal failure, never thrown at the caller.
        return {
          tag: 'error',
          error: { tag: 'Internal', message: `evaluation failed: ${e instanceof Error ? e.message : String(e)}` },
        };
      }
    }
  }

  /** Finds the innermost handler; undefined when evaluation continues, else the final result. */
  private unwind(exc: Extract<SValue, { t: 'any' }>): RunResult | undefined {
    if (this.unhandled) {
      // The exception's message itself failed.
      const f = this.stack.find((x) => x.k === K.Unhandled) as Extract<Frame, { k: K.Unhandled }> | undefined;
      const orig = f?.exc ?? exc;
      const inner = exceptionId(exc.ty);
      const innerName = inner ? `${inner.module}:${inner.name}` : '?';
      return {
        tag: 'error',
        error: unhandledError(orig, `<Failed to calculate message as ${innerName} was thrown during conversion>`),
      };
    }
    while (this.stack.length) {
      const f = this.stack.pop()!;
      if (f.k === K.NoCatch) break;
      if (f.k === K.Catch) {
        this.effects?.rollbackTry(f.token);
        this.stack.push({ k: K.Handler, exc });
        this.evalIn(f.handler, extend(f.env, [exc]));
        return undefined;
      }
    }
    this.unhandled = true;
    this.stack.push({ k: K.Unhandled, exc });
    this.exceptionMessage(exc);
    return undefined;
  }

  private loop(): RunResult {
    const stack = this.stack;
    for (;;) {
      if (this.pending) return { tag: 'question', suspension: this.pending };
      if (++this.steps > this.maxSteps) return { tag: 'error', error: { tag: 'TimeExceeded', steps: this.maxSteps } };
      // The interrupted step is counted, not run: the next `run()` counts it again, past the multiple.
      if (this.interruptEvery > 0 && this.steps % this.interruptEvery === 0) return { tag: 'interrupted' };
      if (this.mode === Mode.Eval) {
        const c = this.code;
        switch (c.op) {
          case Op.Var: {
            let e = this.env!;
            for (let i = c.i; i > 0; i--) e = e.n!;
            this.returnValue(e.v);
            break;
          }
          case Op.Const:
            this.returnValue(c.v);
            break;
          case Op.Val: {
            const d = c.d;
            if (d.value !== undefined) {
              this.returnValue(d.value);
              break;
            }
            d.code ??= this.compiler.compile(d.def.expr);
            stack.push({ k: K.Store, d });
            this.evalIn(d.code, null);
            break;
          }
          case Op.App:
            stack.push({ k: K.App, node: c, env: this.env, fn: null, vals: [] });
            this.code = c.fn;
            break;
          case Op.Abs:
            this.returnValue({ t: 'closure', arity: c.arity, body: c.body, env: this.env });
            break;
          case Op.Let:
            stack.push({ k: K.Let, body: c.body, env: this.env });
            this.code = c.bound;
            break;
          case Op.Case:
            stack.push({ k: K.Case, alts: c.alts, env: this.env });
            this.code = c.scrut;
            break;
          case Op.Prim:
            if (c.args.length === 0) {
              const r = c.f([], this);
              if (r !== undefined) this.returnValue(r);
            } else {
              stack.push({ k: K.Prim, node: c, env: this.env, vals: [] });
              this.code = c.args[0];
            }
            break;
          case Op.Upd:
            this.returnValue({ t: 'update', u: c.u, env: this.env });
            break;
          case Op.Loc:
            this.code = c.body;
            break;
        }
      } else if (this.mode === Mode.Update) {
        this.step(this.upd!, this.updEnv);
      } else {
        const f = stack.pop();
        if (!f) return { tag: 'done', value: this.value };
        const v = this.value;
        switch (f.k) {
          case K.App: {
            if (f.fn === null) f.fn = v;
            else f.vals.push(v);
            if (f.vals.length < f.node.args.length) {
              stack.push(f);
              this.evalIn(f.node.args[f.vals.length], f.env);
            } else this.apply(f.fn, f.vals);
            break;
          }
          case K.Prim: {
            f.vals.push(v);
            if (f.vals.length < f.node.args.length) {
              stack.push(f);
              this.evalIn(f.node.args[f.vals.length], f.env);
            } else {
              const r = f.node.f(f.vals, this);
              if (r !== undefined) this.returnValue(r);
            }
            break;
          }
          case K.Let:
            this.evalIn(f.body, { v, n: f.env });
            break;
          case K.Case:
            this.selectAlt(f.alts, f.env, v);
            break;
          case K.Store:
            f.d.value = v;
            break;
          case K.Apply:
            this.apply(v, f.args);
            break;
          case K.RunUpd:
            this.runUpdate(v);
            break;
          case K.Block: {
            const env: Env = { v, n: f.env };
            const u = f.u;
            if (f.i + 1 < u.binds.length) {
              stack.push({ k: K.Block, u, env, i: f.i + 1 });
              stack.push({ k: K.RunUpd });
              this.evalIn(u.binds[f.i + 1], env);
            } else {
              stack.push({ k: K.RunUpd });
              this.evalIn(u.body, env);
            }
            break;
          }
          case K.Hook:
            f.fn(v);
            break;
          case K.NoCatch:
            break;
          case K.Catch:
            this.effects?.endTry(f.token);
            break;
          case K.Handler:
            if (v.t !== 'optional') throw internal('a catch handler must return an Optional');
            if (v.v === null) throw new DamlThrow(f.exc);
            this.runUpdate(v.v);
            break;
          case K.Foldl:
            if (f.l === null) break;
            stack.push({ k: K.Foldl, f: f.f, l: f.l.tl });
            this.apply(f.f, [v, f.l.h]);
            break;
          case K.Foldr:
            if (f.i < 0) break;
            stack.push({ k: K.Foldr, f: f.f, arr: f.arr, i: f.i - 1 });
            this.apply(f.f, [f.arr[f.i], v]);
            break;
          case K.EqList: {
            if (v.t !== 'bool') throw internal('EQUAL_LIST: the predicate must return a Bool');
            if (!v.v) break;
            if (f.xs === null || f.ys === null) {
              this.returnValue({ t: 'bool', v: f.xs === f.ys });
              break;
            }
            stack.push({ k: K.EqList, f: f.f, xs: f.xs.tl, ys: f.ys.tl });
            this.apply(f.f, [f.xs.h, f.ys.h]);
            break;
          }
          case K.Unhandled: {
            const message = v.t === 'text' ? v.v : '';
            return { tag: 'error', error: unhandledError(f.exc, message) };
          }
        }
      }
    }
  }

  private selectAlt(alts: readonly Alt[], env: Env, v: SValue): void {
    for (const a of alts) {
      switch (a.k) {
        case 'default':
          return this.evalIn(a.body, env);
        case 'variant':
          if (v.t === 'variant' && v.con === a.con) return this.evalIn(a.body, { v: v.v, n: env });
          break;
        case 'enum':
          if (v.t === 'enum' && v.con === a.con) return this.evalIn(a.body, env);
          break;
        case 'bool':
          if (v.t === 'bool' && v.v === a.v) return this.evalIn(a.body, env);
          break;
        case 'unit':
          if (v.t === 'unit') return this.evalIn(a.body, env);
          break;
        case 'nil':
          if (v.t === 'list' && v.v === null) return this.evalIn(a.body, env);
          break;
        case 'cons':
          if (v.t === 'list' && v.v !== null)
            return this.evalIn(a.body, { v: { t: 'list', v: v.v.tl }, n: { v: v.v.h, n: env } });
          break;
        case 'none':
          if (v.t === 'optional' && v.v === null) return this.evalIn(a.body, env);
          break;
        case 'some':
          if (v.t === 'optional' && v.v !== null) return this.evalIn(a.body, { v: v.v, n: env });
          break;
      }
    }
    throw internal(`match error: no alternative for a ${v.t}${v.t === 'variant' || v.t === 'enum' ? ` ${v.con}` : ''}`);
  }

  /** One step of running an update. */
  private step(u: UpdateCode, env: Env): void {
    const fx = this.effects;
    const need = (): UpdateEffects =>
      fx ?? this.fail({ tag: 'Internal', message: 'updates cannot run in a pure evaluation' });
    switch (u.op) {
      case 'pure':
        return this.evalIn(u.e, env);
      case 'embed':
        this.stack.push({ k: K.RunUpd });
        return this.evalIn(u.e, env);
      case 'block':
        if (u.binds.length === 0) {
          this.stack.push({ k: K.RunUpd });
          return this.evalIn(u.body, env);
        }
        this.stack.push({ k: K.Block, u, env, i: 0 });
        this.stack.push({ k: K.RunUpd });
        return this.evalIn(u.binds[0], env);
      case 'create':
        return this.evalThen(u.arg, env, (arg) => need().create(this, u.template, arg));
      case 'createInterface':
        return this.evalThen(u.arg, env, (arg) => {
          if (arg.t !== 'any' || arg.v.t !== 'record') throw internal('create of a non-interface value');
          need().create(this, arg.v.id, arg.v);
        });
      case 'exercise':
        return this.evalThen(u.cid, env, (cid) =>
          this.evalThen(u.arg, env, (arg) => need().exercise(this, u.template, u.choice, cid, arg)),
        );
      case 'exerciseInterface':
        return this.evalThen(u.cid, env, (cid) =>
          this.evalThen(u.arg, env, (arg) => {
            if (!u.guard) return need().exerciseInterface(this, u.iface, u.choice, cid, arg, undefined);
            this.evalThen(u.guard, env, (g) => need().exerciseInterface(this, u.iface, u.choice, cid, arg, g));
          }),
        );
      case 'fetch':
        return this.evalThen(u.cid, env, (cid) => need().fetch(this, u.template, cid));
      case 'fetchInterface':
        return this.evalThen(u.cid, env, (cid) => need().fetchInterface(this, u.iface, cid));
      case 'getTime':
        return need().getTime(this);
      case 'ledgerTimeLt':
        return this.evalThen(u.e, env, (t) => {
          if (t.t !== 'timestamp') throw internal('ledgerTimeLt expects a Timestamp');
          need().ledgerTimeLt(this, t.v);
        });
      case 'tryCatch': {
        const token = fx?.beginTry();
        this.stack.push({ k: K.Catch, handler: u.handler, env, token });
        this.stack.push({ k: K.RunUpd });
        return this.evalIn(u.body, env);
      }
      case 'unsupported':
        return this.fail({ tag: 'Internal', message: `${u.what} is not supported` });
    }
  }
}

function exceptionId(t: Type): TypeConId | undefined {
  return t.tag === 'con' ? t.tycon : undefined;
}

const sameId = (a: TypeConId, b: TypeConId) =>
  a.packageId === b.packageId && a.module === b.module && a.name === b.name;

function unhandledError(exc: Extract<SValue, { t: 'any' }>, message: string): InterpretationError {
  const id = exceptionId(exc.ty) ?? { packageId: '', module: '', name: '' };
  return { tag: 'UnhandledException', exceptionType: id, value: exc.v, message };
}
