/**
 * The engine: commands in, a transaction (or an error, or a question with a continuation) out — Canton's
 * `Engine.submit` and `Result` (`engine/…/Engine.scala`, `Result.scala`). Pure: packages, contracts and the ledger time
 * come in as answers to questions; randomness (the submission seed) and the clock (preparation time) are inputs.
 *
 * Commands run in order on one partial transaction: a create evaluates the template's precondition, signatories and
 * observers, checks that the authorizers (actAs at the root) cover the signatories and derives the node seed and the
 * V1 contract id; an exercise (issue 33 extends this) checks controllers and runs the choice body with nested updates.
 */
import type { Value } from '@canton-network/core-ledger-proto';
import { isLocalContractId } from '@ledgerline/canton';
import type { DefInterface, DefTemplate, Package, PackageId, TemplateChoice, Type, TypeConId } from '../language/ast';
import { qualifiedNameToString } from '../language/ast';
import type { Code, Env } from '../interpreter/code';
import { pushScope } from '../interpreter/compiler';
import { Failure, internal, type InterpretationError } from '../interpreter/errors';
import { Interpreter } from '../interpreter';
import type { Machine, UpdateEffects } from '../interpreter/machine';
import { CompiledPackages } from '../interpreter/packages';
import { forEachContractId, listToArray, type SValue } from '../interpreter/values';
import { jsonToValue } from '../values/json';
import { protoToValue, tryValueToProto, valueToProto } from '../values/proto';
import type { Decoded } from '../values/errors';
import { PartialTransaction, LF_VERSION } from '../transaction/partial-transaction';
import { deriveTransactionSeed } from '../transaction/seeds';
import { Category, fromInterpretationError, fromValueError, packageNotFound, preprocessingError, type EngineError } from './errors';
import type { CommandArgument, ContractInstance, EngineCommand, EngineResult, Question, SubmitContext } from './types';

const tid = (id: TypeConId) => qualifiedNameToString(id);
const con = (id: TypeConId): Type => ({ tag: 'con', tycon: id, args: [] });
const sameId = (a: TypeConId, b: TypeConId) => a.packageId === b.packageId && a.module === b.module && a.name === b.name;
const sortedUnique = (xs: Iterable<string>) => [...new Set(xs)].sort();
const interp = (m: string) => `Interpretation error: Error: ${m}`;
const identifier = (id: TypeConId) => ({ packageId: id.packageId, moduleName: id.module, entityName: id.name });

interface ChoiceCode {
  readonly def: TemplateChoice;
  readonly controllers: Code;
  readonly observers?: Code;
  readonly update: Code;
}

/** A template's compiled pieces: `this` is the only free variable of precond/signatories/observers. */
interface TemplateCode {
  readonly id: TypeConId;
  readonly def: DefTemplate;
  readonly packageName: string;
  readonly precond: Code;
  readonly signatories: Code;
  readonly observers: Code;
  readonly choices: Map<string, ChoiceCode>;
}

interface ContractState {
  readonly contractId: string;
  readonly templateId: TypeConId;
  readonly packageName: string;
  readonly arg: SValue;
  readonly signatories: readonly string[];
  readonly stakeholders: readonly string[];
}

export interface InterfaceViewResult {
  readonly tag: 'view';
  readonly value: SValue;
  /** The view as a proto Value (enriched). */
  readonly proto: Value;
}

export interface InterfaceViewFailure {
  readonly tag: 'failed';
  /** Canton's `viewStatus`: a google.rpc.Status code and message. */
  readonly status: { readonly code: number; readonly message: string };
  readonly error: EngineError;
}

const GRPC_OF_CATEGORY: Record<number, number> = { 2: 10, 4: 13, 8: 3, 9: 9, 11: 5 };

export class Engine {
  readonly interpreter: Interpreter;
  private readonly templates = new Map<string, TemplateCode>();
  private readonly views = new Map<string, Code>();
  private readonly interfaces = new Map<string, { readonly def: DefInterface; readonly choices: Map<string, ChoiceCode> }>();

  constructor(readonly packages: CompiledPackages = new CompiledPackages()) {
    this.interpreter = new Interpreter(packages);
  }

  /** Adds a decoded package (e.g. on upload, to warm the cache). */
  addPackage(pkg: Package): void {
    this.packages.add(pkg);
  }

  submit(commands: readonly EngineCommand[], context: SubmitContext): EngineResult {
    const s = new Submission(this, commands, context);
    return guarded(() => s.start());
  }

  /** The compiled pieces of a template (cached). Throws a Failure when the template does not exist. */
  templateCode(id: TypeConId): TemplateCode {
    const k = tid(id);
    let t = this.templates.get(k);
    if (!t) {
      const def = this.packages.findTemplate(id);
      if (!def) throw new Failure({ tag: 'Ledger', code: 'COMMAND_PREPROCESSING_FAILED', message: `unknown template ${k}` });
      const c = this.interpreter.compiler;
      const scope = pushScope(null, def.param);
      const choices = this.compileChoices(def.param, def.choices);
      t = {
        id,
        def,
        packageName: this.packages.getPackage(id.packageId)!.metadata.name,
        precond: c.compile(def.precond, scope),
        signatories: c.compile(def.signatories, scope),
        observers: c.compile(def.observers, scope),
        choices,
      };
      this.templates.set(k, t);
    }
    return t;
  }

  /** What the pipeline needs to know of a stored template: its package name, implemented interfaces and choices. */
  templateInfo(templateId: TypeConId): { packageName: string; interfaces: TypeConId[]; choices: string[]; hasKey: boolean } | undefined {
    const def = this.packages.findTemplate(templateId);
    if (!def) return undefined;
    return {
      packageName: this.packages.getPackage(templateId.packageId)!.metadata.name,
      interfaces: [...def.implements.values()].map((i) => i.iface),
      choices: [...def.choices.keys()],
      hasKey: def.key !== undefined,
    };
  }

  /** The argument and result types of a template's choice (to type arguments and render results). */
  choiceSignature(templateId: TypeConId, choice: string): { argType: Type; returnType: Type; consuming: boolean } | undefined {
    const ch = this.packages.findTemplate(templateId)?.choices.get(choice);
    return ch && { argType: ch.argBinder.type, returnType: ch.returnType, consuming: ch.consuming };
  }

  /** A proto value (labelled or not) typed against `type` and rendered enriched (record ids, labels) or normalised. */
  normaliseValue(type: Type, value: Value, enriched = true): Decoded<Value> {
    const v = protoToValue(this.packages, type, value);
    return v.ok ? tryValueToProto(v.value, { enriched }) : v;
  }

  /** An interface's compiled choices (`this` is the interface value). Throws a Failure when it does not exist. */
  interfaceCode(id: TypeConId): { readonly def: DefInterface; readonly choices: Map<string, ChoiceCode> } {
    const k = tid(id);
    let ic = this.interfaces.get(k);
    if (!ic) {
      const def = this.packages.findInterface(id);
      if (!def) throw new Failure({ tag: 'Ledger', code: 'COMMAND_PREPROCESSING_FAILED', message: `unknown interface ${k}` });
      ic = { def, choices: this.compileChoices(def.param, def.choices) };
      this.interfaces.set(k, ic);
    }
    return ic;
  }

  private compileChoices(param: string, defs: ReadonlyMap<string, TemplateChoice>): Map<string, ChoiceCode> {
    const c = this.interpreter.compiler;
    const choices = new Map<string, ChoiceCode>();
    for (const [name, ch] of defs) {
      const ctrlScope = pushScope(null, param, ch.argBinder.name);
      choices.set(name, {
        def: ch,
        controllers: c.compile(ch.controllers, ctrlScope),
        observers: ch.observers && c.compile(ch.observers, ctrlScope),
        update: c.compile(ch.update, pushScope(null, param, ch.selfBinder, ch.argBinder.name)),
      });
    }
    return choices;
  }

  /** Types an argument against `type`. */
  typeArgument(type: Type, a: CommandArgument, nullIsUnit = false): Decoded<SValue> {
    if ('value' in a) return { ok: true, value: a.value };
    if ('proto' in a) return protoToValue(this.packages, type, a.proto);
    return jsonToValue(this.packages, type, nullIsUnit && (a.json === null || a.json === undefined) ? {} : a.json);
  }

  /** Evaluates a closed piece of template code purely on a contract argument. */
  private evalOn(code: Code, env: Env): { ok: true; value: SValue } | { ok: false; error: InterpretationError } {
    const m = this.interpreter.machine();
    const r = m.start(code, env).run();
    if (r.tag === 'done') return { ok: true, value: r.value };
    if (r.tag === 'error') return { ok: false, error: r.error };
    return { ok: false, error: { tag: 'Internal', message: 'pure evaluation asked a question' } };
  }

  /**
   * Signatories and observers of a contract of a stored template (for the pipeline: stored contracts, views, filters).
   * The argument is a proto Value (labelled or not) or a typed value.
   */
  contractParties(
    templateId: TypeConId,
    argument: Value | SValue,
  ): { ok: true; signatories: string[]; observers: string[]; stakeholders: string[] } | { ok: false; error: EngineError } {
    try {
      const t = this.templateCode(templateId);
      const arg = this.toValue(templateId, argument);
      if (!arg.ok) return { ok: false, error: fromValueError(arg.error) };
      const env: Env = { v: arg.value, n: null };
      const s = this.evalOn(t.signatories, env);
      if (!s.ok) return { ok: false, error: fromInterpretationError(s.error) };
      const o = this.evalOn(t.observers, env);
      if (!o.ok) return { ok: false, error: fromInterpretationError(o.error) };
      const signatories = sortedUnique(partiesOf(s.value));
      const observers = sortedUnique(partiesOf(o.value)).filter((p) => !signatories.includes(p));
      return { ok: true, signatories, observers, stakeholders: sortedUnique([...signatories, ...observers]) };
    } catch (e) {
      if (e instanceof Failure) return { ok: false, error: fromInterpretationError(e.error) };
      throw e;
    }
  }

  private toValue(templateId: TypeConId, argument: Value | SValue): Decoded<SValue> {
    return 't' in argument ? { ok: true, value: argument } : protoToValue(this.packages, con(templateId), argument);
  }

  /**
   * The view of `interfaceId` for a contract of `templateId` (the template's interface instance), or Canton's
   * `viewStatus` when the template does not implement the interface or the view fails.
   */
  interfaceView(templateId: TypeConId, interfaceId: TypeConId, argument: Value | SValue): InterfaceViewResult | InterfaceViewFailure {
    const failed = (error: EngineError): InterfaceViewFailure => ({ tag: 'failed', error, status: { code: GRPC_OF_CATEGORY[error.category] ?? 13, message: error.message } });
    try {
      const t = this.templateCode(templateId);
      const impl = t.def.implements.get(tid(interfaceId));
      if (!impl)
        return failed({
          code: 'CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE',
          category: Category.InvalidIndependentOfSystemState,
          message: interp(`Update failed due to contract of template ${tid(templateId)} not implementing interface ${tid(interfaceId)}`),
        });
      const arg = this.toValue(templateId, argument);
      if (!arg.ok) return failed(fromValueError(arg.error));
      const key = `${tid(templateId)}/${tid(interfaceId)}`;
      let code = this.views.get(key);
      if (!code) {
        code = this.interpreter.compiler.compile(impl.body.view, pushScope(null, t.def.param));
        this.views.set(key, code);
      }
      const r = this.evalOn(code, { v: arg.value, n: null });
      if (!r.ok) return failed(fromInterpretationError(r.error));
      return { tag: 'view', value: r.value, proto: valueToProto(r.value) };
    } catch (e) {
      if (e instanceof Failure) return failed(fromInterpretationError(e.error));
      throw e;
    }
  }
}

/** A bug must not escape as an exception: it becomes Canton's internal error (and so do the continuations' bugs). */
function guarded(f: () => EngineResult): EngineResult {
  let r: EngineResult;
  try {
    r = f();
  } catch (e) {
    if (e instanceof Failure) return { tag: 'error', error: fromInterpretationError(e.error) };
    return {
      tag: 'error',
      error: { code: 'LEDGER_API_INTERNAL_ERROR', category: Category.SystemInternalAssumptionViolated, message: `Daml engine failure: ${e instanceof Error ? e.message : String(e)}` },
    };
  }
  switch (r.tag) {
    case 'needPackage':
      return { ...r, resume: (x: Package | undefined) => guarded(() => r.resume(x)) };
    case 'needContract':
      return { ...r, resume: (x: ContractInstance | undefined) => guarded(() => r.resume(x)) };
    case 'needTime':
      return { ...r, resume: (x: bigint) => guarded(() => r.resume(x)) };
    default:
      return r;
  }
}

function partiesOf(v: SValue): string[] {
  if (v.t !== 'list') throw internal(`expected a list of parties, got ${v.t}`);
  return listToArray(v.v).map((p) => {
    if (p.t !== 'party') throw internal(`expected a party, got ${p.t}`);
    return p.v;
  });
}

type Prepared =
  | { kind: 'create'; template: TemplateCode; arg: SValue }
  | { kind: 'exercise'; template: TemplateCode; contractId: string; choice: ChoiceCode; arg: SValue }
  | { kind: 'createAndExercise'; template: TemplateCode; createArg: SValue; choice: ChoiceCode; arg: SValue }
  | { kind: 'exerciseInterface'; iface: TypeConId; contractId: string; choice: ChoiceCode; arg: SValue };

/** One submission's interpretation: resumable at every question. */
class Submission implements UpdateEffects {
  private readonly pkgs: CompiledPackages;
  private ptx!: PartialTransaction;
  private machine!: Machine;
  private prepared: Prepared[] = [];
  private index = 0;
  private running = false;
  private readonly results: SValue[] = [];
  private readonly local = new Map<string, ContractState>();
  private readonly ledger = new Map<string, ContractState>();
  private readonly inputContracts: ContractInstance[] = [];
  /** Contracts consumed so far in this transaction → the node id of the consuming exercise. */
  private readonly consumed = new Map<string, number>();
  private readonly usedPackages = new Set<PackageId>();
  private ledgerTime: bigint | undefined;
  private timeMin: bigint | undefined;
  private timeMax: bigint | undefined;
  private dependsOnTime = false;

  constructor(
    private readonly engine: Engine,
    private readonly commands: readonly EngineCommand[],
    private readonly ctx: SubmitContext,
  ) {
    this.pkgs = engine.packages;
    this.ledgerTime = ctx.ledgerTime;
  }

  start(): EngineResult {
    const missing = this.pkgs.missingDependencies(this.commands.map((c) => c.templateId.packageId));
    if (missing.length) {
      const packageId = missing[0];
      return {
        tag: 'needPackage',
        packageId,
        resume: (pkg) => {
          if (!pkg) return { tag: 'error', error: packageNotFound(packageId) };
          this.pkgs.add(pkg);
          return this.start();
        },
      };
    }
    const pre = this.preprocess();
    if (pre) return { tag: 'error', error: pre };
    this.ptx = new PartialTransaction(deriveTransactionSeed(this.ctx.submissionSeed, this.ctx.participantId, this.ctx.preparationTime), this.ctx.preparationTime, this.ctx.actAs);
    this.machine = this.engine.interpreter.machine({ effects: this, maxSteps: this.ctx.maxSteps });
    return this.drive();
  }

  private preprocess(): EngineError | undefined {
    try {
      for (const c of this.commands) {
        if (c.kind === 'exercise' && !this.pkgs.findTemplate(c.templateId) && this.pkgs.findInterface(c.templateId)) {
          const ic = this.engine.interfaceCode(c.templateId);
          const choice = ic.choices.get(c.choice);
          if (!choice) throw preprocessingError(`unknown choice ${c.choice} in interface ${tid(c.templateId)}`);
          const r = this.engine.typeArgument(choice.def.argBinder.type, c.argument, true);
          if (!r.ok) throw fromValueError(r.error);
          this.prepared.push({ kind: 'exerciseInterface', iface: c.templateId, contractId: c.contractId, choice, arg: r.value });
          continue;
        }
        const template = this.engine.templateCode(c.templateId);
        const typed = (t: Type, a: CommandArgument, nullIsUnit = false) => {
          const r = this.engine.typeArgument(t, a, nullIsUnit);
          if (!r.ok) throw fromValueError(r.error);
          return r.value;
        };
        const choiceOf = (name: string) => {
          const ch = template.choices.get(name);
          if (!ch) throw preprocessingError(`unknown choice ${name} in template ${tid(c.templateId)}`);
          return ch;
        };
        if (c.kind === 'create') this.prepared.push({ kind: 'create', template, arg: typed(con(c.templateId), c.argument) });
        else if (c.kind === 'exercise') {
          const choice = choiceOf(c.choice);
          this.prepared.push({ kind: 'exercise', template, contractId: c.contractId, choice, arg: typed(choice.def.argBinder.type, c.argument, true) });
        } else {
          const choice = choiceOf(c.choice);
          this.prepared.push({
            kind: 'createAndExercise',
            template,
            createArg: typed(con(c.templateId), c.createArgument),
            choice,
            arg: typed(choice.def.argBinder.type, c.choiceArgument, true),
          });
        }
      }
      if (this.ctx.forbidLocalContractIds) this.checkSuffixedInputs();
      return undefined;
    } catch (e) {
      if (e instanceof Failure) return fromInterpretationError(e.error);
      if (e && typeof e === 'object' && 'code' in e && 'category' in e) return e as EngineError;
      throw e;
    }
  }

  /** Canton's preprocessor with `forbidLocalContractIds` (`engine/refinement/ValueTranslator.scala` `validateCid`). */
  private checkSuffixedInputs(): void {
    const allowed = this.ctx.storedLocalContractIds;
    const check = (cid: string) => {
      if (isLocalContractId(cid) && !allowed?.has(cid)) throw preprocessingError(`Illegal Contract ID "${cid}", non-suffixed V1 Contract IDs are forbidden`);
    };
    for (const p of this.prepared) {
      if (p.kind !== 'create' && p.kind !== 'createAndExercise') check(p.contractId);
      if (p.kind === 'createAndExercise') forEachContractId(p.createArg, check);
      forEachContractId(p.arg, check);
    }
  }

  private runCommand(m: Machine, p: Prepared): void {
    switch (p.kind) {
      case 'create':
        return this.create(m, p.template.id, p.arg);
      case 'exercise':
        return this.exercise(m, p.template.id, p.choice.def.name, { t: 'cid', v: p.contractId }, p.arg);
      case 'createAndExercise':
        m.andThen((cid) => this.exercise(m, p.template.id, p.choice.def.name, cid, p.arg));
        return this.create(m, p.template.id, p.createArg);
      case 'exerciseInterface':
        return this.exerciseInterface(m, p.iface, p.choice.def.name, { t: 'cid', v: p.contractId }, p.arg, undefined);
    }
  }

  private drive(): EngineResult {
    for (;;) {
      if (!this.running) {
        if (this.index >= this.prepared.length) return this.finish();
        this.running = true;
        const p = this.prepared[this.index];
        this.machine.startWith((m) => this.runCommand(m, p));
      }
      const r = this.machine.run();
      if (r.tag === 'done') {
        this.results.push(r.value);
        this.index++;
        this.running = false;
        continue;
      }
      if (r.tag === 'error') return { tag: 'error', error: fromInterpretationError(r.error) };
      const q = r.suspension.question as Question;
      const resume = (answer: unknown): EngineResult => {
        r.suspension.resume(answer);
        return this.drive();
      };
      switch (q.tag) {
        case 'needPackage':
          return { tag: 'needPackage', packageId: q.packageId, resume: (pkg) => resume(pkg) };
        case 'needContract':
          return { tag: 'needContract', contractId: q.contractId, resume: (c) => resume(c) };
        case 'needTime':
          return { tag: 'needTime', resume: (t) => resume(t) };
      }
    }
  }

  private finish(): EngineResult {
    const { transaction, nodeSeeds } = this.ptx.finish();
    return {
      tag: 'done',
      transaction,
      results: this.results,
      metadata: {
        transactionSeed: this.ptx.transactionSeed,
        preparationTime: this.ctx.preparationTime,
        nodeSeeds,
        usedPackages: [...this.usedPackages].sort(),
        inputContracts: this.inputContracts,
        ledgerTimeBounds: { ...(this.timeMin !== undefined ? { min: this.timeMin } : {}), ...(this.timeMax !== undefined ? { max: this.timeMax } : {}) },
        dependsOnTime: this.dependsOnTime,
      },
    };
  }

  private fail(code: string, message: string, details?: Record<string, unknown>): never {
    throw new Failure({ tag: 'Ledger', code, message, details });
  }

  private proto(v: SValue): Value {
    const r = tryValueToProto(v, { enriched: this.ctx.enrichValues ?? true });
    if (!r.ok) this.fail('VALUE_NESTING', interp(r.error.message));
    return r.value;
  }

  // ---------------------------------------------------------------------------------------------------------- effects

  create(m: Machine, templateId: TypeConId, arg: SValue): void {
    const t = this.engine.templateCode(templateId);
    this.usedPackages.add(templateId.packageId);
    const env: Env = { v: arg, n: null };
    m.evalThen(t.precond, env, (ok) => {
      if (ok.t !== 'bool') throw internal('a template precondition must be a Bool');
      if (!ok.v) m.fail({ tag: 'TemplatePreconditionViolated', templateId, arg });
      m.evalThen(t.signatories, env, (sigs) =>
        m.evalThen(t.observers, env, (obs) => {
          const signatories = sortedUnique(partiesOf(sigs));
          const observers = sortedUnique(partiesOf(obs));
          const nodeId = this.ptx.nextNodeId();
          if (signatories.length === 0) this.fail('DAML_AUTHORIZATION_ERROR', interp(`node NodeId(${nodeId}) (${tid(templateId)}) has no signatories`));
          const auth = this.ptx.authorizers;
          if (signatories.some((p) => !auth.has(p)))
            this.fail(
              'DAML_AUTHORIZATION_ERROR',
              interp(`node NodeId(${nodeId}) (${tid(templateId)}) requires authorizers ${signatories.join(',')}, but only ${sortedUnique(auth).join(',')} were given`),
            );
          const contractId = this.ptx.insertCreate({
            packageName: t.packageName,
            templateId: identifier(templateId),
            argument: this.proto(arg),
            signatories,
            observers,
          });
          this.local.set(contractId, {
            contractId,
            templateId,
            packageName: t.packageName,
            arg,
            signatories,
            stakeholders: sortedUnique([...signatories, ...observers]),
          });
          m.returnValue({ t: 'cid', v: contractId });
        }),
      );
    });
  }

  /** Calls `k` with the contract's state: created here, answered before, or asked for now. */
  private withContract(m: Machine, cid: SValue, k: (c: ContractState) => void): void {
    if (cid.t !== 'cid') throw internal(`expected a contract id, got ${cid.t}`);
    const id = cid.v;
    const known = this.local.get(id) ?? this.ledger.get(id);
    if (known) return k(known);
    m.ask({ tag: 'needContract', contractId: id } satisfies Question, (answer) => {
      const c = answer as ContractInstance | undefined;
      if (!c || c.contractId !== id) this.fail('CONTRACT_NOT_FOUND', `Contract could not be found with id ${id}`, { contractId: id });
      const withPackage = () => {
        const arg = protoToValue(this.pkgs, con(c.templateId), c.argument);
        if (!arg.ok) throw internal(`the stored argument of ${id} does not match its template: ${arg.error.message}`);
        const state: ContractState = {
          contractId: id,
          templateId: c.templateId,
          packageName: c.packageName,
          arg: arg.value,
          signatories: sortedUnique(c.signatories),
          stakeholders: sortedUnique(c.stakeholders),
        };
        this.ledger.set(id, state);
        this.inputContracts.push(c);
        k(state);
      };
      const missing = this.pkgs.missingDependencies([c.templateId.packageId]);
      if (!missing.length) return withPackage();
      const askNext = (): void => {
        const next = this.pkgs.missingDependencies([c.templateId.packageId]);
        if (!next.length) return withPackage();
        m.ask({ tag: 'needPackage', packageId: next[0] } satisfies Question, (pkg) => {
          if (!pkg) this.fail('PACKAGE_NOT_FOUND', `Couldn't find package ${next[0]}`);
          this.pkgs.add(pkg as Package);
          askNext();
        });
      };
      askNext();
    });
  }

  private checkActive(c: ContractState, expected: TypeConId): void {
    if (!sameId(c.templateId, expected))
      this.fail(
        'WRONGLY_TYPED_CONTRACT',
        interp(`Contract ${c.contractId} was found but it is of template ${tid(c.templateId)}, not of the expected ${tid(expected)}`),
        { contractId: c.contractId },
      );
    const consumedBy = this.consumed.get(c.contractId);
    if (consumedBy !== undefined)
      this.fail(
        'CONTRACT_NOT_ACTIVE',
        interp(`Update failed due to fetch of an inactive contract ${c.contractId} (${tid(c.templateId)}).\nThe contract had been consumed in sub-transaction #NodeId(${consumedBy}):`),
        { contractId: c.contractId },
      );
  }

  exercise(m: Machine, templateId: TypeConId, choiceName: string, cid: SValue, arg: SValue): void {
    this.withContract(m, cid, (c) => {
      this.checkActive(c, templateId);
      const t = this.engine.templateCode(templateId);
      this.usedPackages.add(templateId.packageId);
      const ch = t.choices.get(choiceName);
      if (!ch) throw internal(`unknown choice ${choiceName} in template ${tid(templateId)}`);
      this.runChoice(m, c, undefined, ch, c.arg, cid, arg);
    });
  }

  exerciseInterface(m: Machine, iface: TypeConId, choiceName: string, cid: SValue, arg: SValue, guard: SValue | undefined): void {
    this.withContract(m, cid, (c) => {
      this.checkImplements(c, iface);
      this.checkActive(c, c.templateId);
      const ic = this.engine.interfaceCode(iface);
      this.usedPackages.add(iface.packageId);
      this.usedPackages.add(c.templateId.packageId);
      const ch = ic.choices.get(choiceName);
      if (!ch) throw internal(`unknown choice ${choiceName} in interface ${tid(iface)}`);
      const value: SValue = { t: 'any', ty: con(c.templateId), v: c.arg };
      if (!guard) return this.runChoice(m, c, iface, ch, value, cid, arg);
      m.applyThen(guard, [value], (ok) => {
        if (ok.t !== 'bool' || !ok.v)
          this.fail('DAML_INTERPRETATION_ERROR', interp(`Exercise guard failed for contract ${c.contractId} of template ${tid(c.templateId)}`));
        this.runChoice(m, c, iface, ch, value, cid, arg);
      });
    });
  }

  /** Controllers, choice observers, authorization, the exercise node and the choice body (`this` is `self`'s value). */
  private runChoice(m: Machine, c: ContractState, iface: TypeConId | undefined, ch: ChoiceCode, thisValue: SValue, cid: SValue, arg: SValue): void {
    const templateId = c.templateId;
    const ctrlEnv: Env = { v: arg, n: { v: thisValue, n: null } };
    m.evalThen(ch.controllers, ctrlEnv, (ctrlV) => {
      const withObservers = (obsV: SValue | undefined) => {
        const controllers = sortedUnique(partiesOf(ctrlV));
        const choiceObservers = obsV ? sortedUnique(partiesOf(obsV)) : [];
        const nodeId = this.ptx.nextNodeId();
        if (controllers.length === 0) this.fail('DAML_AUTHORIZATION_ERROR', interp(`node NodeId(${nodeId}) (${tid(templateId)}) has no controllers`));
        const auth = this.ptx.authorizers;
        if (controllers.some((p) => !auth.has(p)))
          this.fail(
            'DAML_AUTHORIZATION_ERROR',
            interp(`node NodeId(${nodeId}) (${tid(templateId)}) requires authorizers ${controllers.join(',')}, but only ${sortedUnique(auth).join(',')} were given`),
          );
        this.ptx.beginExercise(
          {
            lfVersion: LF_VERSION,
            contractId: c.contractId,
            packageName: c.packageName,
            templateId: identifier(templateId),
            signatories: [...c.signatories],
            stakeholders: [...c.stakeholders],
            actingParties: controllers,
            ...(iface ? { interfaceId: identifier(iface) } : {}),
            choiceId: ch.def.name,
            chosenValue: this.proto(arg),
            consuming: ch.def.consuming,
            choiceObservers,
          },
          [...c.signatories, ...controllers],
        );
        if (ch.def.consuming) this.consumed.set(c.contractId, nodeId);
        const env: Env = { v: arg, n: { v: cid, n: { v: thisValue, n: null } } };
        m.evalThen(ch.update, env, (u) => {
          m.andThen((result) => {
            this.ptx.endExercise(this.proto(result));
            m.returnValue(result);
          });
          m.runUpdate(u);
        });
      };
      if (ch.observers) m.evalThen(ch.observers, ctrlEnv, withObservers);
      else withObservers(undefined);
    });
  }

  private checkImplements(c: ContractState, iface: TypeConId): void {
    if (!this.pkgs.findTemplate(c.templateId)?.implements.has(tid(iface)))
      this.fail(
        'CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE',
        interp(`Update failed due to contract ${c.contractId} not implementing an interface ${tid(iface)}`),
        { contractId: c.contractId },
      );
  }

  private insertFetch(c: ContractState, iface: TypeConId | undefined): void {
    const auth = this.ptx.authorizers;
    const nodeId = this.ptx.nextNodeId();
    if (!c.stakeholders.some((p) => auth.has(p)))
      this.fail(
        'DAML_AUTHORIZATION_ERROR',
        interp(
          `node NodeId(${nodeId}) requires one of the stakeholders ${c.stakeholders.join(',')} of the fetched contract to be an authorizer, but authorizers were ${sortedUnique(auth).join(',')}`,
        ),
      );
    this.usedPackages.add(c.templateId.packageId);
    this.ptx.insertFetch({
      lfVersion: LF_VERSION,
      contractId: c.contractId,
      packageName: c.packageName,
      templateId: identifier(c.templateId),
      signatories: [...c.signatories],
      stakeholders: [...c.stakeholders],
      actingParties: sortedUnique(auth),
      ...(iface ? { interfaceId: identifier(iface) } : {}),
    });
  }

  fetch(m: Machine, templateId: TypeConId, cid: SValue): void {
    this.withContract(m, cid, (c) => {
      this.checkActive(c, templateId);
      this.insertFetch(c, undefined);
      m.returnValue(c.arg);
    });
  }

  fetchInterface(m: Machine, iface: TypeConId, cid: SValue): void {
    this.withContract(m, cid, (c) => {
      this.checkImplements(c, iface);
      this.checkActive(c, c.templateId);
      this.usedPackages.add(iface.packageId);
      this.insertFetch(c, iface);
      m.returnValue({ t: 'any', ty: con(c.templateId), v: c.arg });
    });
  }

  private withTime(m: Machine, k: (now: bigint) => void): void {
    this.dependsOnTime = true;
    if (this.ledgerTime !== undefined) return k(this.ledgerTime);
    m.ask({ tag: 'needTime' } satisfies Question, (t) => {
      if (typeof t !== 'bigint') throw internal('the ledger time must be a bigint (µs)');
      this.ledgerTime = t;
      k(t);
    });
  }

  getTime(m: Machine): void {
    this.withTime(m, (now) => {
      this.timeMin = now;
      this.timeMax = now;
      m.returnValue({ t: 'timestamp', v: now });
    });
  }

  ledgerTimeLt(m: Machine, time: bigint): void {
    this.withTime(m, (now) => {
      if (now < time) {
        const ub = time - 1n;
        this.timeMax = this.timeMax === undefined || ub < this.timeMax ? ub : this.timeMax;
        m.returnValue({ t: 'bool', v: true });
      } else {
        this.timeMin = this.timeMin === undefined || time > this.timeMin ? time : this.timeMin;
        m.returnValue({ t: 'bool', v: false });
      }
    });
  }

  beginTry(): unknown {
    return { ptx: this.ptx.beginTry(), consumed: new Map(this.consumed) };
  }
  endTry(token: unknown): void {
    this.ptx.endTry((token as { ptx: number }).ptx);
  }
  /** A rolled-back scope's archives are undone with it. */
  rollbackTry(token: unknown): void {
    const t = token as { ptx: number; consumed: Map<string, number> };
    this.ptx.rollbackTry(t.ptx);
    this.consumed.clear();
    for (const [c, by] of t.consumed) this.consumed.set(c, by);
  }
}

