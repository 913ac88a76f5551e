/**
 * One submission's interpretation (Canton's `Speedy.UpdateMachine` with `PartialTransaction`): commands run in order on
 * one partial transaction; the machine asks for packages, contracts and the time and resumes with the answers.
 */
import type { Value } from '@canton-network/core-ledger-proto';
import { isLocalContractId } from '@ledgerline/canton';
import type { Package, PackageId, Type, TypeConId } from '../language/ast';
import type { Code, Env } from '../interpreter/code';
import { Failure, internal } from '../interpreter/errors';
import type { Machine, UpdateEffects } from '../interpreter/machine';
import type { CompiledPackages } from '../interpreter/packages';
import { forEachContractId, type SValue } from '../interpreter/values';
import { protoToValue, tryValueToProto } from '../values/proto';
import { PartialTransaction, LF_VERSION, choiceAuthority } from '../transaction/partial-transaction';
import { deriveTransactionSeed } from '../transaction/seeds';
import {
  Category,
  commandTraceLine,
  fromInterpretationError,
  interpretationFailure,
  fromValueError,
  packageNotFound,
  preprocessingError,
  type EngineError,
} from './errors';
import type { CommandArgument, ContractInstance, EngineCommand, EngineResult, Question, SubmitContext } from './types';
import {
  UNCONSTRAINED_TIME,
  boundsAfterGetTime,
  boundsAfterLedgerTimeLt,
  boundsConstraints,
  type TimeRange,
} from './ledger-time';
import { createFailure, exerciseFailure, fetchFailure } from './authorization';
import {
  contractDoesNotImplementInterface,
  contractNotActive,
  validationFailed,
  wronglyTypedContract,
} from '../interpreter/contract-errors';
import {
  con,
  identifier,
  interp,
  partiesOf,
  sortedUnique,
  tid,
  type ChoiceCode,
  type EngineHost,
  type TemplateCode,
} from './compiled';

const sameId = (a: TypeConId, b: TypeConId) =>
  a.packageId === b.packageId && a.module === b.module && a.name === b.name;

interface ContractState {
  readonly contractId: string;
  readonly templateId: TypeConId;
  readonly packageName: string;
  readonly arg: SValue;
  readonly signatories: readonly string[];
  readonly stakeholders: readonly string[];
}

/** A bug must not escape as an exception: it becomes Canton's internal error (and so do the continuations' bugs). */
export function guarded(f: () => EngineResult): EngineResult {
  let r: EngineResult;
  try {
    r = f();
  } catch (e) {
    if (e instanceof Failure) return { tag: 'error', error: fromInterpretationError(e.error) };
    return {
      tag: 'error',
      error: {
        code: 'LEDGER_API_INTERNAL_ERROR',
        category: Category.SystemInternalAssumptionViolated,
        message: `Daml engine failure: ${e instanceof Error ? e.message : String(e)}`,
      },
    };
  }
  switch (r.tag) {
    case 'needPackage':
      return { ...r, resume: (x: Package | undefined) => guarded(() => r.resume(x)) };
    case 'needContract':
      return { ...r, resume: (x: ContractInstance | undefined) => guarded(() => r.resume(x)) };
    case 'needTime':
      return { ...r, resume: (x: bigint) => guarded(() => r.resume(x)) };
    case 'interrupted':
      return { ...r, resume: () => guarded(() => r.resume()) };
    default:
      return r;
  }
}

type Prepared =
  | { kind: 'create'; template: TemplateCode; arg: SValue }
  | { kind: 'exercise'; template: TemplateCode; contractId: string; choice: ChoiceCode; arg: SValue }
  | { kind: 'createAndExercise'; template: TemplateCode; createArg: SValue; choice: ChoiceCode; arg: SValue }
  | { kind: 'exerciseInterface'; iface: TypeConId; contractId: string; choice: ChoiceCode; arg: SValue };

/** A prepared command as the exercise trace names it. */
function traceCommand(p: Prepared): Parameters<typeof commandTraceLine>[0] {
  switch (p.kind) {
    case 'create':
      return { kind: 'create', templateId: p.template.id };
    case 'exercise':
      return { kind: 'exercise', templateId: p.template.id, choice: p.choice.def.name, contractId: p.contractId };
    case 'createAndExercise':
      return { kind: 'createAndExercise', templateId: p.template.id, choice: p.choice.def.name };
    case 'exerciseInterface':
      return { kind: 'exercise', templateId: p.iface, choice: p.choice.def.name, contractId: p.contractId };
  }
}

/** One submission's interpretation: resumable at every question. */
export class Submission implements UpdateEffects {
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
  private timeBounds: TimeRange = UNCONSTRAINED_TIME;
  private dependsOnTime = false;

  constructor(
    private readonly engine: EngineHost,
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
    this.ptx = new PartialTransaction(
      deriveTransactionSeed(this.ctx.submissionSeed, this.ctx.participantId, this.ctx.preparationTime),
      this.ctx.preparationTime,
      this.ctx.actAs,
    );
    this.machine = this.engine.interpreter.machine({
      effects: this,
      maxSteps: this.ctx.maxSteps,
      maxMemoryBytes: this.ctx.maxMemoryBytes,
      stepsBetweenInterruptions: this.ctx.stepsBetweenInterruptions,
      onTrace: this.ctx.onTrace,
    });
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
          this.prepared.push({
            kind: 'exerciseInterface',
            iface: c.templateId,
            contractId: c.contractId,
            choice,
            arg: r.value,
          });
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
        if (c.kind === 'create')
          this.prepared.push({ kind: 'create', template, arg: typed(con(c.templateId), c.argument) });
        else if (c.kind === 'exercise') {
          const choice = choiceOf(c.choice);
          this.prepared.push({
            kind: 'exercise',
            template,
            contractId: c.contractId,
            choice,
            arg: typed(choice.def.argBinder.type, c.argument, true),
          });
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
      if (isLocalContractId(cid) && !allowed?.has(cid))
        throw preprocessingError(`Illegal Contract ID "${cid}", non-suffixed V1 Contract IDs are forbidden`);
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

  private counted = 0;

  private countSteps(): void {
    const meter = this.ctx.stepMeter;
    if (!meter) return;
    const steps = this.machine.executedSteps;
    meter.steps += steps - this.counted;
    this.counted = steps;
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
      this.countSteps();
      if (r.tag === 'done') {
        this.results.push(r.value);
        this.index++;
        this.running = false;
        continue;
      }
      if (r.tag === 'error')
        return {
          tag: 'error',
          error: interpretationFailure(
            r.error,
            this.ptx.openExercises(),
            commandTraceLine(traceCommand(this.prepared[this.index])),
          ),
        };
      if (r.tag === 'interrupted') return { tag: 'interrupted', resume: () => this.drive() };
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
        ledgerTimeBounds: boundsConstraints(this.timeBounds),
        dependsOnTime: this.dependsOnTime,
      },
    };
  }

  private fail(code: string, message: string, details?: Record<string, unknown>): never {
    throw new Failure({ tag: 'Ledger', code, message, details });
  }

  private proto(v: SValue): Value {
    const r = tryValueToProto(v, { enriched: this.ctx.enrichValues ?? true });
    if (!r.ok) this.fail('VALUE_NESTING', interp('Value exceeds maximum nesting value of 100'));
    return r.value;
  }

  // ---------------------------------------------------------------------------------------------------------- effects

  create(m: Machine, templateId: TypeConId, arg: SValue): void {
    const t = this.engine.templateCode(templateId);
    this.usedPackages.add(templateId.packageId);
    this.contractMetadata(m, t, arg, (signatories, observers) => {
      const argument = this.proto(arg);
      const failure = createFailure(this.ptx.nextNodeId(), templateId, signatories, this.ptx.authority);
      if (failure) this.fail('DAML_AUTHORIZATION_ERROR', interp(failure));
      const contractId = this.ptx.insertCreate({
        packageName: t.packageName,
        templateId: identifier(templateId),
        argument,
        signatories,
        observers,
      });
      const stakeholders = sortedUnique([...signatories, ...observers]);
      this.local.set(contractId, {
        contractId,
        templateId,
        packageName: t.packageName,
        arg,
        signatories,
        stakeholders,
      });
      m.returnValue({ t: 'cid', v: contractId });
    });
  }

  /** A template's precondition, signatories and observers on an argument, in Canton's order (its contract info). */
  private contractMetadata(
    m: Machine,
    t: TemplateCode,
    arg: SValue,
    k: (signatories: string[], observers: string[]) => void,
  ): void {
    const env: Env = { v: arg, n: null };
    m.evalThen(t.precond, env, (ok) => {
      if (ok.t !== 'bool') throw internal('a template precondition must be a Bool');
      if (!ok.v) m.fail({ tag: 'TemplatePreconditionViolated', templateId: t.id, arg });
      m.evalThen(t.signatories, env, (sigs) =>
        m.evalThen(t.observers, env, (obs) => k(sortedUnique(partiesOf(sigs)), sortedUnique(partiesOf(obs)))),
      );
    });
  }

  /** Calls `k` with the contract's state: created here, read before, or asked for now (`fresh`: its first use). */
  private withContract(m: Machine, cid: SValue, k: (c: ContractState, fresh: boolean) => void): void {
    if (cid.t !== 'cid') throw internal(`expected a contract id, got ${cid.t}`);
    const id = cid.v;
    const known = this.local.get(id) ?? this.ledger.get(id);
    if (known) return k(known, false);
    m.ask({ tag: 'needContract', contractId: id } satisfies Question, (answer) => {
      const c = answer as ContractInstance | undefined;
      if (!c || c.contractId !== id)
        this.fail('CONTRACT_NOT_FOUND', `Contract could not be found with id ${id}`, { contractId: id });
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
        k(state, true);
      };
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

  /**
   * A contract used as `templateId`, in Canton's order (`SBuiltinFun.fetchTemplate`): its activeness, then its template,
   * then — on a ledger contract's first use — its metadata recomputed from the template and compared with the stored.
   */
  private withTemplateContract(m: Machine, cid: SValue, templateId: TypeConId, k: (c: ContractState) => void): void {
    this.withContract(m, cid, (c, fresh) => {
      this.checkActive(c);
      if (!sameId(c.templateId, templateId)) throw wronglyTypedContract(c.contractId, templateId, c.templateId);
      if (fresh) this.validate(m, c, () => k(c));
      else k(c);
    });
  }

  /** A contract used through an interface: its activeness, then that its template implements the interface. */
  private withInterfaceContract(m: Machine, cid: SValue, iface: TypeConId, k: (c: ContractState) => void): void {
    this.withContract(m, cid, (c, fresh) => {
      this.checkActive(c);
      if (!this.pkgs.findTemplate(c.templateId)?.implements.has(tid(iface)))
        throw contractDoesNotImplementInterface(c.contractId, c.templateId, iface);
      if (fresh) this.validate(m, c, () => k(c));
      else k(c);
    });
  }

  private checkActive(c: ContractState): void {
    const consumedBy = this.consumed.get(c.contractId);
    if (consumedBy !== undefined) throw contractNotActive(c.contractId, c.templateId, consumedBy);
  }

  /** Recomputes a ledger contract's metadata; exceptions thrown meanwhile cannot be caught. */
  private validate(m: Machine, c: ContractState, k: () => void): void {
    const t = this.engine.templateCode(c.templateId);
    m.andThen(() => k());
    m.preventCatch();
    this.contractMetadata(m, t, c.arg, (signatories, observers) => {
      const stakeholders = sortedUnique([...signatories, ...observers]);
      if (signatories.join() !== c.signatories.join() || stakeholders.join() !== c.stakeholders.join()) {
        const storedObservers = c.stakeholders.filter((p) => !c.signatories.includes(p));
        throw validationFailed(
          c.contractId,
          c.templateId,
          { packageName: c.packageName, signatories: c.signatories, observers: storedObservers },
          { packageName: t.packageName, signatories, observers },
        );
      }
      m.returnValue({ t: 'unit' });
    });
  }

  exercise(m: Machine, templateId: TypeConId, choiceName: string, cid: SValue, arg: SValue): void {
    this.withTemplateContract(m, cid, templateId, (c) => {
      const t = this.engine.templateCode(templateId);
      this.usedPackages.add(templateId.packageId);
      const ch = t.choices.get(choiceName);
      if (!ch) throw internal(`unknown choice ${choiceName} in template ${tid(templateId)}`);
      this.runChoice(m, c, undefined, ch, c.arg, cid, arg);
    });
  }

  exerciseInterface(
    m: Machine,
    iface: TypeConId,
    choiceName: string,
    cid: SValue,
    arg: SValue,
    guard: SValue | undefined,
  ): void {
    this.withInterfaceContract(m, cid, iface, (c) => {
      const ic = this.engine.interfaceCode(iface);
      this.usedPackages.add(iface.packageId);
      this.usedPackages.add(c.templateId.packageId);
      const ch = ic.choices.get(choiceName);
      if (!ch) throw internal(`unknown choice ${choiceName} in interface ${tid(iface)}`);
      const value: SValue = { t: 'any', ty: con(c.templateId), v: c.arg };
      if (!guard) return this.runChoice(m, c, iface, ch, value, cid, arg);
      m.applyThen(guard, [value], (ok) => {
        if (ok.t !== 'bool' || !ok.v)
          this.fail(
            'DAML_INTERPRETATION_ERROR',
            interp(`Exercise guard failed for contract ${c.contractId} of template ${tid(c.templateId)}`),
          );
        this.runChoice(m, c, iface, ch, value, cid, arg);
      });
    });
  }

  /**
   * Controllers, choice observers and choice authorizers (in that order), the chosen value, authorization, the exercise
   * node and the choice body (`this` is `self`'s value) with the authority of the choice authorizers, or else of the
   * signatories and controllers.
   */
  private runChoice(
    m: Machine,
    c: ContractState,
    iface: TypeConId | undefined,
    ch: ChoiceCode,
    thisValue: SValue,
    cid: SValue,
    arg: SValue,
  ): void {
    const ctrlEnv: Env = { v: arg, n: { v: thisValue, n: null } };
    // Exceptions in controllers, choice observers and authorizers are not catchable (Canton `Compiler.scala`: SEPreventCatch).
    const parties = (code: Code | undefined, k: (ps: string[] | undefined) => void) =>
      code ? m.evalThenUncatchable(code, ctrlEnv, (v) => k(sortedUnique(partiesOf(v)))) : k(undefined);
    parties(ch.controllers, (ctrl) =>
      parties(ch.observers, (choiceObservers) =>
        parties(ch.authorizers, (choiceAuthorizers) => {
          const controllers = ctrl ?? [];
          const chosenValue = this.proto(arg);
          const failure = exerciseFailure(
            this.ptx.nextNodeId(),
            c.templateId,
            controllers,
            choiceAuthorizers,
            this.ptx.authority,
          );
          if (failure) this.fail('DAML_AUTHORIZATION_ERROR', interp(failure));
          const nodeId = this.ptx.nextNodeId();
          this.ptx.beginExercise(
            {
              lfVersion: LF_VERSION,
              contractId: c.contractId,
              packageName: c.packageName,
              templateId: identifier(c.templateId),
              signatories: [...c.signatories],
              stakeholders: [...c.stakeholders],
              actingParties: controllers,
              ...(iface ? { interfaceId: identifier(iface) } : {}),
              choiceId: ch.def.name,
              chosenValue,
              consuming: ch.def.consuming,
              choiceObservers: choiceObservers ?? [],
            },
            choiceAuthority(choiceAuthorizers ?? [...c.signatories, ...controllers]),
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
        }),
      ),
    );
  }

  /** A fetch node: its acting parties are the authorizers among the stakeholders. */
  private insertFetch(c: ContractState, iface: TypeConId | undefined): void {
    const auth = this.ptx.authority;
    const failure = fetchFailure(this.ptx.nextNodeId(), c.stakeholders, auth);
    if (failure) this.fail('DAML_AUTHORIZATION_ERROR', interp(failure));
    this.usedPackages.add(c.templateId.packageId);
    this.ptx.insertFetch({
      lfVersion: LF_VERSION,
      contractId: c.contractId,
      packageName: c.packageName,
      templateId: identifier(c.templateId),
      signatories: [...c.signatories],
      stakeholders: [...c.stakeholders],
      actingParties: c.stakeholders.filter(auth.has),
      ...(iface ? { interfaceId: identifier(iface) } : {}),
    });
  }

  fetch(m: Machine, templateId: TypeConId, cid: SValue): void {
    this.withTemplateContract(m, cid, templateId, (c) => {
      this.insertFetch(c, undefined);
      m.returnValue(c.arg);
    });
  }

  fetchInterface(m: Machine, iface: TypeConId, cid: SValue): void {
    this.withInterfaceContract(m, cid, iface, (c) => {
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
      this.timeBounds = boundsAfterGetTime(this.timeBounds, now);
      m.returnValue({ t: 'timestamp', v: now });
    });
  }

  ledgerTimeLt(m: Machine, time: bigint): void {
    this.withTime(m, (now) => {
      const r = boundsAfterLedgerTimeLt(this.timeBounds, now, time);
      this.timeBounds = r.bounds;
      m.returnValue({ t: 'bool', v: r.result });
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
