/**
 * The engine: commands in, a transaction (or an error, or a question with a continuation) out — Canton's
 * `Engine.submit` and `Result` (`engine/…/Engine.scala`, `Result.scala`). Pure: packages, contracts and the ledger time
 * come in as answers to questions; randomness (the submission seed) and the clock (preparation time) are inputs.
 *
 * Commands run in order on one partial transaction (`submission.ts`): a create evaluates the template's precondition,
 * signatories and observers, checks that the authorizers (actAs at the root) cover the signatories and derives the node
 * seed and the V1 contract id; an exercise checks controllers, choice observers and authorizers and runs the choice body
 * with nested updates.
 */
import type { Value } from '@canton-network/core-ledger-proto';
import type { DefInterface, Package, TemplateChoice, Type, TypeConId } from '../language/ast';
import type { Code, Env } from '../interpreter/code';
import { pushScope } from '../interpreter/compiler';
import { Failure, type InterpretationError } from '../interpreter/errors';
import { Interpreter } from '../interpreter';
import { CompiledPackages } from '../interpreter/packages';
import type { SValue } from '../interpreter/values';
import { jsonToValue } from '../values/json';
import { protoToValue, tryValueToProto, valueToProto } from '../values/proto';
import type { Decoded } from '../values/errors';
import { Category, fromInterpretationError, fromValueError, type EngineError } from './errors';
import type { CommandArgument, EngineCommand, EngineResult, SubmitContext } from './types';
import {
  con,
  partiesOf,
  sortedUnique,
  tid,
  interp,
  type ChoiceCode,
  type EngineHost,
  type TemplateCode,
} from './compiled';
import { guarded, Submission } from './submission';

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

export class Engine implements EngineHost {
  readonly interpreter: Interpreter;
  private readonly templates = new Map<string, TemplateCode>();
  private readonly views = new Map<string, Code>();
  private readonly interfaces = new Map<
    string,
    { readonly def: DefInterface; readonly choices: Map<string, ChoiceCode> }
  >();

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
      if (!def)
        throw new Failure({ tag: 'Ledger', code: 'COMMAND_PREPROCESSING_FAILED', message: `unknown template ${k}` });
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
  templateInfo(
    templateId: TypeConId,
  ): { packageName: string; interfaces: TypeConId[]; choices: string[]; hasKey: boolean } | undefined {
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
  choiceSignature(
    templateId: TypeConId,
    choice: string,
  ): { argType: Type; returnType: Type; consuming: boolean } | undefined {
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
      if (!def)
        throw new Failure({ tag: 'Ledger', code: 'COMMAND_PREPROCESSING_FAILED', message: `unknown interface ${k}` });
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
        authorizers: ch.authorizers && c.compile(ch.authorizers, ctrlScope),
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
  ):
    | { ok: true; signatories: string[]; observers: string[]; stakeholders: string[] }
    | { ok: false; error: EngineError } {
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

  private toValue(templateId: TypeConId, argument: Value | SValue | { readonly json: unknown }): Decoded<SValue> {
    if ('json' in argument) return jsonToValue(this.packages, con(templateId), argument.json);
    return 't' in argument ? { ok: true, value: argument } : protoToValue(this.packages, con(templateId), argument);
  }

  /**
   * The view of `interfaceId` for a contract of `templateId` (the template's interface instance), or Canton's
   * `viewStatus` when the template does not implement the interface or the view fails. The argument is a proto Value, a
   * typed value, or its JSON (as the JSON Ledger API renders a create argument).
   */
  interfaceView(
    templateId: TypeConId,
    interfaceId: TypeConId,
    argument: Value | SValue | { readonly json: unknown },
  ): InterfaceViewResult | InterfaceViewFailure {
    const failed = (error: EngineError): InterfaceViewFailure => ({
      tag: 'failed',
      error,
      status: { code: GRPC_OF_CATEGORY[error.category] ?? 13, message: error.message },
    });
    try {
      const t = this.templateCode(templateId);
      const impl = t.def.implements.get(tid(interfaceId));
      if (!impl)
        return failed({
          code: 'CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE',
          category: Category.InvalidIndependentOfSystemState,
          message: interp(
            `Update failed due to contract of template ${tid(templateId)} not implementing interface ${tid(interfaceId)}`,
          ),
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
