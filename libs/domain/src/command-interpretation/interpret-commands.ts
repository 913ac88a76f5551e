/**
 * Command interpretation: the one place that decides, per submission, whether the Daml engine runs the commands (every
 * command's template belongs to a package stored here) or the generic template model builds them (none does). The
 * engine is resumable: it asks for packages and contracts as it meets them, and this function hands those questions to
 * the caller (the server answers them from the store) with a continuation, so the domain stays free of I/O.
 *
 * Contracts the submitters cannot see (no stakeholder among actAs ∪ readAs) are answered as unknown, so the engine
 * reports CONTRACT_NOT_FOUND before it could tell anything about them (their template included).
 */
import type { Metadata_InputContract } from '@canton-network/core-ledger-proto';
import { isLocalContractId } from '@ledgerline/canton';
import type { ContractInstance, Engine, EngineCommand, EngineError, EngineResult, Package, TypeConId } from '@ledgerline/daml-lf';
import { ErrorCategories, LedgerError, invalidArgument, type ErrorCategory } from '../errors';
import { parseIsoMicros } from '../ledger/time';
import { buildTransaction, inputContractOf, submissionSynchronizer, type BuildEnvironment, type BuildRequest, type BuildState, type BuiltTransaction } from '../transaction-builder/build-transaction';
import type { StoredContract, TransactionCommand } from '../transaction-builder/commands';
import { commandName } from '../transaction-builder/commands';

export interface InterpretEnvironment extends BuildEnvironment {
  /** The engine (compiled packages of this process). */
  engine: Engine;
}

/** What interpreting commands gives: the transaction, or a question for the caller and how to go on. */
export type Interpretation =
  | { readonly tag: 'built'; readonly built: BuiltTransaction }
  | { readonly tag: 'needPackage'; readonly packageId: string; readonly resume: (pkg: Package | undefined) => Interpretation }
  | { readonly tag: 'needContract'; readonly contractId: string; readonly resume: (contract: StoredContract | undefined) => Interpretation };

const CATEGORY_BY_ID = new Map<number, ErrorCategory>(Object.values(ErrorCategories).map((c) => [c.id, c]));

/** An engine failure as the API reports it (Canton's code, category and cause; DAML_FAILURE's metadata in the context). */
export function engineRejection(e: EngineError): LedgerError {
  const category = CATEGORY_BY_ID.get(e.category) ?? ErrorCategories.InvalidIndependentOfSystemState;
  return new LedgerError(e.code, category, e.message, { context: { ...(e.metadata ?? {}) }, resources: e.resources?.map(([k, v]) => [k, v] as [string, string]) });
}

const typeConId = (t: { packageId: string; moduleName: string; entityName: string }): TypeConId => ({ packageId: t.packageId, module: t.moduleName, name: t.entityName });

/** The engine's view of a stored contract: its Create node (from the created-event blob) and creation time. */
function contractInstanceOf(c: StoredContract): ContractInstance {
  const ic = inputContractOf(c);
  if (ic.contract.oneofKind !== 'v1') throw new Error(`contract ${c.contractId}: no Create node`);
  const create = ic.contract.v1;
  const [packageId, module, name] = c.templateId.split(':');
  return {
    contractId: c.contractId,
    templateId: { packageId, module, name },
    packageName: c.packageName,
    argument: create.argument ?? { sum: { oneofKind: 'unit', unit: {} } },
    signatories: [...c.signatories],
    stakeholders: [...c.stakeholders],
    createdAt: ic.createdAt ?? parseIsoMicros(c.createdEvent.createdAt),
  };
}

/** Whether a decoded package defines this template (or interface, for an exercise by interface id). */
function definesTemplate(pkg: Package | undefined, t: { moduleName: string; entityName: string }): boolean {
  const m = pkg?.modules.get(t.moduleName);
  return !!m && (m.templates.has(t.entityName) || m.interfaces.has(t.entityName));
}

/** Whether the template (or interface) defines the choice. */
function hasChoice(pkg: Package | undefined, t: { moduleName: string; entityName: string }, choice: string): boolean {
  const m = pkg?.modules.get(t.moduleName);
  return !!m && !!(m.templates.get(t.entityName)?.choices.has(choice) || m.interfaces.get(t.entityName)?.choices.has(choice));
}

/** Canton's JSON layer for a choice the template does not have (SchemaProcessorsImpl's `invalidChoiceException`). */
const invalidChoice = (t: { packageId: string; moduleName: string; entityName: string }, choice: string) =>
  invalidArgument(`Invalid template:${t.packageId}:${t.moduleName}:${t.entityName} or choice:${choice}`);

/**
 * Interprets the commands. A command's template runs on the engine when its package is stored here and its archive
 * defines it (the packages are asked for first, to decide); otherwise the generic model builds it. A submission is one
 * or the other as a whole.
 */
export function interpretCommands(req: BuildRequest, state: BuildState, env: InterpretEnvironment): Interpretation {
  const resolved = req.commands.map((c) => env.templates.resolve(c.templateId, c.template));
  const packageIds = [...new Set(resolved.filter((t) => t.stored).map((t) => t.packageId))];
  const decoded = new Map<string, Package | undefined>();
  const decide = (): Interpretation => {
    const next = packageIds.find((id) => !decoded.has(id));
    if (next !== undefined) return { tag: 'needPackage', packageId: next, resume: (pkg) => (decoded.set(next, pkg), decide()) };
    const onEngine = resolved.filter((t) => t.stored && definesTemplate(decoded.get(t.packageId), t)).length;
    if (onEngine === 0) return { tag: 'built', built: buildTransaction(req, state, env) };
    if (onEngine < resolved.length)
      throw invalidArgument(
        'The commands name templates of packages stored on this participant, which the Daml engine runs, together with templates of packages ' +
          'that are not stored, which only the generic template model builds: submit them separately.',
      );
    req.commands.forEach((c, i) => {
      if (c.kind === 'create') return;
      const t = resolved[i];
      if (!hasChoice(decoded.get(t.packageId), t, c.choice)) throw invalidChoice(t, c.choice);
    });
    return runEngine(req, resolved, state, env);
  };
  return decide();
}

function runEngine(req: BuildRequest, resolved: readonly { packageId: string; moduleName: string; entityName: string }[], state: BuildState, env: InterpretEnvironment): Interpretation {
  const commands = req.commands.map((c, i) => engineCommand(c, typeConId(resolved[i])));
  const loaded = new Map<string, StoredContract>();
  const visible = new Set([...req.actAs, ...req.readAs]);
  const follow = (r: EngineResult): Interpretation => {
    switch (r.tag) {
      case 'done': {
        const inputs: Metadata_InputContract[] = [];
        const syncs = new Set<string>();
        for (const ic of r.metadata.inputContracts) {
          const c = loaded.get(ic.contractId);
          if (!c) continue;
          inputs.push(inputContractOf(c));
          if (c.synchronizerId) syncs.add(c.synchronizerId);
        }
        if (syncs.size > 1) throw invalidArgument(`the input contracts are assigned to different synchronizers: ${[...syncs].sort().join(', ')}`);
        const synchronizerId = submissionSynchronizer(req, env, [...syncs][0] ?? null);
        return { tag: 'built', built: { transaction: r.transaction, inputContracts: inputs, synchronizerId } };
      }
      case 'error':
        throw engineRejection(r.error);
      case 'needPackage':
        return { tag: 'needPackage', packageId: r.packageId, resume: (pkg) => follow(r.resume(pkg)) };
      case 'needContract':
        return {
          tag: 'needContract',
          contractId: r.contractId,
          resume: (c) => {
            const usable = c && c.status === 'active' && c.stakeholders.some((p) => visible.has(p)) ? c : undefined;
            if (usable) loaded.set(usable.contractId, usable);
            return follow(r.resume(usable && contractInstanceOf(usable)));
          },
        };
      case 'needTime':
        return follow(r.resume(env.now));
    }
  };
  return follow(
    env.engine.submit(commands, {
      actAs: req.actAs,
      readAs: req.readAs,
      submissionSeed: env.submissionSeed,
      participantId: env.participantId,
      preparationTime: env.now,
      ledgerTime: env.now,
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
      return { kind: 'exercise', templateId, contractId: c.contractId, choice: c.choice, argument: { json: c.choiceArgument } };
    case 'createAndExercise':
      return { kind: 'createAndExercise', templateId, createArgument: { json: c.createArguments }, choice: c.choice, choiceArgument: { json: c.choiceArgument } };
    case 'exerciseByKey':
      throw new LedgerError(
        'COMMAND_PREPROCESSING_FAILED',
        ErrorCategories.InvalidIndependentOfSystemState,
        `${commandName(c)}: template ${c.templateId} has no contract key (Daml-LF 2.1–2.2 packages have no keys)`,
      );
  }
}
