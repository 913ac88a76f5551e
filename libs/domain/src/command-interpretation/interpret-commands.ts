/**
 * Command interpretation: the one place that decides, per submission, whether the Daml engine runs the commands (every
 * command's template belongs to a package stored here) or the generic template model builds them (none does). The
 * engine is resumable: it asks for packages and contracts as it meets them, and this function hands those questions to
 * the caller (the server answers them from the store) with a continuation, so the domain stays free of I/O.
 *
 * Contracts the submitters cannot see (no stakeholder among actAs ∪ readAs) are answered as unknown, so the engine
 * reports CONTRACT_NOT_FOUND before it could tell anything about them (their template included) — unless the submission
 * discloses them: a disclosed contract is answered from its blob, without asking the caller, whatever the ledger knows of
 * it (an archived one is the writer's to refuse at commit, as Canton's mediator does).
 *
 * Package preference: a `#name` template resolves to the preferred package of that name (the template directory). An
 * exercise by `#name` of a contract created with another package of that name runs the choice of the contract's own
 * package when that package defines it, because Ledgerline does not upgrade contract data across package versions (Canton
 * would run the preferred package's choice on the contract upgraded to it: `community/daml-lf/engine/.../refinement/
 * CommandPreprocessor.scala` resolves the name, Speedy upgrades the contract); when it does not, the preferred package's
 * choice is asked for and the engine refuses the contract as WRONGLY_TYPED_CONTRACT. An exercise by package id, and
 * every create, use the package named. An exercise by interface id runs the implementation of the contract's template.
 */
import type { Metadata_InputContract } from '@canton-network/core-ledger-proto';
import { isLocalContractId } from '@ledgerline/canton';
import type {
  ContractInstance,
  Engine,
  EngineCommand,
  EngineError,
  EngineResult,
  Package,
  TypeConId,
} from '@ledgerline/daml-lf';
import { ErrorCategories, LedgerError, invalidArgument, type ErrorCategory } from '../errors';
import { parseIsoMicros } from '../ledger/time';
import { templatesOrInterfacesNotFound } from '../packages/package-errors';
import { failedToDetermineLedgerTime, interpretationTimeExceeded } from './interpretation-budget';
import {
  buildTransaction,
  inputContractOf,
  submissionSynchronizer,
  type BuildEnvironment,
  type BuildRequest,
  type BuildState,
  type BuiltTransaction,
} from '../transaction-builder/build-transaction';
import type { StoredContract, TransactionCommand } from '../transaction-builder/commands';
import { commandName } from '../transaction-builder/commands';
import { disclosedContractsSynchronizer, type DisclosedContract } from './disclosed-contracts';
import type { DirectoryTemplate } from '../transaction-builder/template-directory';

export interface InterpretEnvironment extends BuildEnvironment {
  /** The engine (compiled packages of this process). */
  engine: Engine;
  /**
   * µs: the ledger effective time the commands run at, which `getTime` reads (Canton's `CommandsValidator.validateLedgerTime`:
   * now, raised to min_ledger_time_abs or now + min_ledger_time_rel); default `now`.
   */
  ledgerTime?: bigint;
  /** Engine steps after which the interpretation fails (INTERPRETATION_TIME_EXCEEDED); the engine's default if absent. */
  maxSteps?: number;
  /** Bytes the interpretation may build (estimated) before it fails (INTERPRETATION_TIME_EXCEEDED); the engine's default if absent. */
  maxMemoryBytes?: number;
  /** Engine steps between two `interrupted` answers (see `Interpretation`); never if absent. */
  stepsBetweenInterruptions?: number;
  /** Counts the engine's steps (every interpretation of the submission, retries included). */
  stepMeter?: { steps: number };
}

/** The ledger time bounds (µs, inclusive) the engine's transaction imposes; a missing side is unconstrained. */
export interface LedgerTimeBounds {
  readonly min?: bigint;
  readonly max?: bigint;
}

/** An interpreted transaction: the engine's carries the ledger time bounds its time reads impose (the generic model's none). */
export interface InterpretedTransaction extends BuiltTransaction {
  ledgerTimeBounds?: LedgerTimeBounds;
  /** µs: the least ledger effective time it may commit at, when later than the time it ran at (its input contracts' creation). */
  minLedgerTime?: bigint;
}

/** The commands with the contracts they disclose (validated, see `validateDisclosedContracts`). */
export interface InterpretRequest extends BuildRequest {
  disclosedContracts?: readonly DisclosedContract[];
}

/** What interpreting commands gives: the transaction, or a question for the caller and how to go on. */
export type Interpretation =
  | { readonly tag: 'built'; readonly built: InterpretedTransaction }
  | {
      readonly tag: 'needPackage';
      readonly packageId: string;
      readonly resume: (pkg: Package | undefined) => Interpretation;
    }
  | {
      readonly tag: 'needContract';
      readonly contractId: string;
      readonly resume: (contract: StoredContract | undefined) => Interpretation;
    }
  /** The engine ran `stepsBetweenInterruptions` steps: the caller checks its time budget (and may give way) before resuming. */
  | { readonly tag: 'interrupted'; readonly resume: () => Interpretation };

const CATEGORY_BY_ID = new Map<number, ErrorCategory>(Object.values(ErrorCategories).map((c) => [c.id, c]));

/** An engine failure as the API reports it (Canton's code, category and cause; DAML_FAILURE's metadata in the context). */
export function engineRejection(e: EngineError): LedgerError {
  if (e.code === 'INTERPRETATION_TIME_EXCEEDED') return interpretationTimeExceeded(e.message);
  const category = CATEGORY_BY_ID.get(e.category) ?? ErrorCategories.InvalidIndependentOfSystemState;
  return new LedgerError(e.code, category, e.message, {
    context: { ...(e.metadata ?? {}) },
    resources: e.resources?.map(([k, v]) => [k, v] as [string, string]),
  });
}

const typeConId = (t: { packageId: string; moduleName: string; entityName: string }): TypeConId => ({
  packageId: t.packageId,
  module: t.moduleName,
  name: t.entityName,
});

/** The engine's view of a stored contract: its Create node (from the created-event blob) and creation time. */
function contractInstanceOf(c: StoredContract): ContractInstance {
  const ic = inputContractOf(c);
  return { ...inputContractInstance(ic), createdAt: ic.createdAt ?? parseIsoMicros(c.createdEvent.createdAt) };
}

/** The engine's view of an input contract (a Create node and its creation time). */
function inputContractInstance(ic: Metadata_InputContract): ContractInstance {
  if (ic.contract.oneofKind !== 'v1') throw new Error('input contract without a Create node');
  const create = ic.contract.v1;
  return {
    contractId: create.contractId,
    templateId: typeConId(create.templateId!),
    packageName: create.packageName,
    argument: create.argument ?? { sum: { oneofKind: 'unit', unit: {} } },
    signatories: [...create.signatories],
    stakeholders: [...create.stakeholders],
    createdAt: ic.createdAt,
  };
}

/** Whether a decoded package defines this template (or interface, for an exercise by interface id). */
function definesTemplate(pkg: Package | undefined, t: { moduleName: string; entityName: string }): boolean {
  const m = pkg?.modules.get(t.moduleName);
  return !!m && (m.templates.has(t.entityName) || m.interfaces.has(t.entityName));
}

/** Whether the package defines an interface (not a template) of this name. */
function definesInterface(pkg: Package | undefined, t: { moduleName: string; entityName: string }): boolean {
  const m = pkg?.modules.get(t.moduleName);
  return !!m && !m.templates.has(t.entityName) && m.interfaces.has(t.entityName);
}

/**
 * Whether the template (or, for an ExerciseCommand, the interface) defines the choice. A template's choices are its own:
 * an interface choice is exercised by the interface id (Canton's `PackageInterface.lookupTemplateChoice`).
 */
function hasChoice(pkg: Package | undefined, t: { moduleName: string; entityName: string }, choice: string): boolean {
  const m = pkg?.modules.get(t.moduleName);
  return (
    !!m && !!(m.templates.get(t.entityName)?.choices.has(choice) || m.interfaces.get(t.entityName)?.choices.has(choice))
  );
}

/** Canton's JSON layer for a choice the template does not have (SchemaProcessorsImpl's `invalidChoiceException`). */
const invalidChoice = (t: { packageId: string; moduleName: string; entityName: string }, choice: string) =>
  invalidArgument(`Invalid template:${t.packageId}:${t.moduleName}:${t.entityName} or choice:${choice}`);

/**
 * The template of an exercise by `#name` in the package of the exercised contract, when the contract is one the
 * submitters see, of that package name and template, created with another package than the preferred one.
 */
function contractsOwnPackage(
  c: TransactionCommand,
  t: DirectoryTemplate,
  state: BuildState,
  visible: ReadonlySet<string>,
): DirectoryTemplate | undefined {
  if (c.kind !== 'exercise' || !t.stored || !c.template.packageRef.startsWith('#')) return undefined;
  const contract = state.contracts.get(c.contractId);
  if (
    !contract ||
    contract.status !== 'active' ||
    !contract.stakeholders.some((p) => visible.has(p)) ||
    contract.packageName !== t.packageName
  )
    return undefined;
  const [packageId, moduleName, entityName] = contract.templateId.split(':');
  if (packageId === t.packageId || moduleName !== t.moduleName || entityName !== t.entityName) return undefined;
  return { ...t, packageId };
}

/**
 * Interprets the commands. A command's template runs on the engine when its package is stored here and its archive
 * defines it (the packages are asked for first, to decide); otherwise the generic model builds it. A submission is one
 * or the other as a whole.
 */
export function interpretCommands(req: InterpretRequest, state: BuildState, env: InterpretEnvironment): Interpretation {
  const preferred = req.commands.map((c) => env.templates.resolve(c.templateId, c.template));
  const visible = new Set([...req.actAs, ...req.readAs]);
  const own = req.commands.map((c, i) => contractsOwnPackage(c, preferred[i], state, visible));
  const packageIds = [
    ...new Set([...preferred, ...own].filter((t): t is DirectoryTemplate => !!t?.stored).map((t) => t.packageId)),
  ];
  const decoded = new Map<string, Package | undefined>();
  const decide = (): Interpretation => {
    const next = packageIds.find((id) => !decoded.has(id));
    if (next !== undefined)
      return { tag: 'needPackage', packageId: next, resume: (pkg) => (decoded.set(next, pkg), decide()) };
    const resolved = preferred.map((t, i) => {
      const o = own[i];
      const c = req.commands[i];
      return o && c.kind !== 'create' && hasChoice(decoded.get(o.packageId), o, c.choice) ? o : t;
    });
    const onEngine = resolved.filter((t) => t.stored && definesTemplate(decoded.get(t.packageId), t)).length;
    if (onEngine === 0) return { tag: 'built', built: buildTransaction(req, state, env) };
    if (onEngine < resolved.length)
      throw invalidArgument(
        'The commands name templates of packages stored on this participant, which the Daml engine runs, together with templates of packages ' +
          'that are not stored, which only the generic template model builds: submit them separately.',
      );
    req.commands.forEach((c, i) => {
      const t = resolved[i];
      const pkg = decoded.get(t.packageId);
      // Create arguments are typed by a template: an interface id has none (SchemaProcessors' extractTemplateValue).
      if (c.kind !== 'exercise' && definesInterface(pkg, t))
        throw templatesOrInterfacesNotFound(`${t.packageId}:${t.moduleName}:${t.entityName}`);
      if (c.kind === 'create') return;
      if (!hasChoice(pkg, t, c.choice)) throw invalidChoice(t, c.choice);
    });
    return runEngine(req, resolved, state, env);
  };
  return decide();
}

/** Re-interpretations at a later ledger time before FAILED_TO_DETERMINE_LEDGER_TIME (Canton's `ApiServices`: 3). */
const LEDGER_TIME_RETRIES = 3;

/**
 * Causal monotonicity (Canton's `LedgerTimeAwareCommandExecutor`): a transaction is never effective before the contracts
 * it uses were created. When one was created after the ledger time the commands ran at, a transaction that read no time
 * commits at that creation time or later (`minLedgerTime`); one that read the time is interpreted again at it.
 */
function runEngine(
  req: InterpretRequest,
  resolved: readonly { packageId: string; moduleName: string; entityName: string }[],
  state: BuildState,
  env: InterpretEnvironment,
  retriesLeft = LEDGER_TIME_RETRIES,
): Interpretation {
  const ledgerTime = env.ledgerTime ?? env.now;
  const commands = req.commands.map((c, i) => engineCommand(c, typeConId(resolved[i])));
  const loaded = new Map<string, StoredContract>();
  const disclosed = new Map((req.disclosedContracts ?? []).map((d) => [d.contractId, d]));
  const visible = new Set([...req.actAs, ...req.readAs]);
  const follow = (r: EngineResult): Interpretation => {
    switch (r.tag) {
      case 'done': {
        const inputs: Metadata_InputContract[] = [];
        const syncs = new Set<string>();
        const usedDisclosed: DisclosedContract[] = [];
        for (const ic of r.metadata.inputContracts) {
          const d = disclosed.get(ic.contractId);
          if (d) {
            inputs.push(d.inputContract);
            usedDisclosed.push(d);
            continue;
          }
          const c = loaded.get(ic.contractId);
          if (!c) continue;
          inputs.push(inputContractOf(c));
          if (c.synchronizerId) syncs.add(c.synchronizerId);
        }
        // Canton's order of the used disclosed contracts: the request's.
        const order = [...disclosed.keys()];
        usedDisclosed.sort((a, b) => order.indexOf(a.contractId) - order.indexOf(b.contractId));
        const prescribed = disclosedContractsSynchronizer(usedDisclosed, req.synchronizerId);
        if (syncs.size > 1)
          throw invalidArgument(
            `the input contracts are assigned to different synchronizers: ${[...syncs].sort().join(', ')}`,
          );
        const synchronizerId = submissionSynchronizer(
          prescribed ? { ...req, synchronizerId: prescribed } : req,
          env,
          [...syncs][0] ?? null,
        );
        const lastCreated = r.metadata.inputContracts.reduce<bigint | undefined>(
          (m, c) => (m === undefined || c.createdAt > m ? c.createdAt : m),
          undefined,
        );
        const late = lastCreated !== undefined && lastCreated > ledgerTime;
        if (late && r.metadata.dependsOnTime) {
          if (retriesLeft === 0) throw failedToDetermineLedgerTime(LEDGER_TIME_RETRIES);
          return runEngine(req, resolved, state, { ...env, ledgerTime: lastCreated }, retriesLeft - 1);
        }
        return {
          tag: 'built',
          built: {
            transaction: r.transaction,
            inputContracts: inputs,
            synchronizerId,
            ledgerTimeBounds: r.metadata.ledgerTimeBounds,
            ...(late ? { minLedgerTime: lastCreated } : {}),
          },
        };
      }
      case 'error':
        throw engineRejection(r.error);
      case 'needPackage':
        return { tag: 'needPackage', packageId: r.packageId, resume: (pkg) => follow(r.resume(pkg)) };
      case 'needContract': {
        const d = disclosed.get(r.contractId);
        if (d) return follow(r.resume(inputContractInstance(d.inputContract)));
        return {
          tag: 'needContract',
          contractId: r.contractId,
          resume: (c) => {
            const usable = c && c.status === 'active' && c.stakeholders.some((p) => visible.has(p)) ? c : undefined;
            if (usable) loaded.set(usable.contractId, usable);
            return follow(r.resume(usable && contractInstanceOf(usable)));
          },
        };
      }
      case 'needTime':
        return follow(r.resume(ledgerTime));
      case 'interrupted':
        return { tag: 'interrupted', resume: () => follow(r.resume()) };
    }
  };
  return follow(
    env.engine.submit(commands, {
      actAs: req.actAs,
      readAs: req.readAs,
      submissionSeed: env.submissionSeed,
      participantId: env.participantId,
      preparationTime: env.now,
      ...(env.maxSteps !== undefined ? { maxSteps: env.maxSteps } : {}),
      ...(env.maxMemoryBytes !== undefined ? { maxMemoryBytes: env.maxMemoryBytes } : {}),
      ...(env.stepsBetweenInterruptions !== undefined
        ? { stepsBetweenInterruptions: env.stepsBetweenInterruptions }
        : {}),
      ...(env.stepMeter ? { stepMeter: env.stepMeter } : {}),
      // Committed contracts have Canton's suffix; an unsuffixed id is refused unless it names a contract stored before
      // this ledger suffixed ids.
      forbidLocalContractIds: true,
      storedLocalContractIds: new Set([...state.contracts.keys()].filter(isLocalContractId)),
    }),
  );
}

function engineCommand(c: TransactionCommand, templateId: TypeConId): EngineCommand {
  switch (c.kind) {
    case 'create':
      return { kind: 'create', templateId, argument: { json: c.createArguments } };
    case 'exercise':
      return {
        kind: 'exercise',
        templateId,
        contractId: c.contractId,
        choice: c.choice,
        argument: { json: c.choiceArgument },
      };
    case 'createAndExercise':
      return {
        kind: 'createAndExercise',
        templateId,
        createArgument: { json: c.createArguments },
        choice: c.choice,
        choiceArgument: { json: c.choiceArgument },
      };
    case 'exerciseByKey':
      throw new LedgerError(
        'COMMAND_PREPROCESSING_FAILED',
        ErrorCategories.InvalidIndependentOfSystemState,
        `${commandName(c)}: template ${c.templateId} has no contract key (Daml-LF 2.1–2.2 packages have no keys)`,
      );
  }
}
