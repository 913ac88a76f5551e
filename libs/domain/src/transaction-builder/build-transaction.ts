/**
 * The transaction builder of the generic template model (no Daml engine, no packages): commands in, Daml-LF transaction
 * nodes out, the same for every path that builds from commands (prepare, command submission).
 *
 * - CreateCommand: the JSON arguments become a Daml-LF value without type information (`jsonToValue` of libs/canton:
 *   object → record with labels in key order, array → list, integer → int64, other number → numeric, boolean → bool,
 *   null → optional none, a known party id → party, other string → text). Signatories = actAs; observers = the other
 *   parties found in the arguments; a template catalog entry overrides either with named fields.
 * - ExerciseCommand with the choice `Archive`: consuming, acting parties = the contract's signatories (all in actAs); the
 *   contract must be active and visible to actAs ∪ readAs. Any other choice is refused (choices are not interpreted).
 * - CreateAndExerciseCommand with `Archive`: the create, then the consuming exercise of the new contract, two root nodes of
 *   one transaction (a transient contract).
 * - ExerciseByKeyCommand: refused (no contract keys in the model), after its choice is checked like any other.
 *
 * Templates are resolved through a TemplateDirectory. Pure: time, randomness and the ledger state it needs are inputs.
 */
import {
  Metadata_InputContract,
  type Create,
  type DamlTransaction,
  type DamlTransaction_Node,
  type Exercise,
  type Value,
} from '@canton-network/core-ledger-proto';
import {
  isContractId,
  isLocalContractId,
  isPartyId,
  jsonToValue,
  makeContractId,
  CantonError,
} from '@ledgerline/canton';
import { deriveContractDiscriminator, deriveNodeSeed, deriveTransactionSeed } from '@ledgerline/daml-lf';
import { invalidArgument, invalidField } from '../errors';
import { contractNotActive } from '../ledger-model/errors';
import { parseIsoMicros } from '../ledger/time';
import {
  choiceNotInterpreted,
  contractKeysNotModelled,
  contractNotFound,
  nonSuffixedContractId,
  damlAuthorizationError,
  noSynchronizerForSubmission,
  partiesNotKnown,
  wronglyTypedContract,
} from './builder-errors';
import type { StoredContract, TransactionCommand } from './commands';
import { valuesAtPath } from './template-catalog';
import type { TemplateDirectory } from './template-directory';
import { templateIdOf, type ResolvedTemplate } from './template-id';

export const LF_VERSION = '2.1';

export interface BuildRequest {
  commands: readonly TransactionCommand[];
  actAs: readonly string[];
  readAs: readonly string[];
  /** '' = choose. */
  synchronizerId: string;
}

/** What building reads from the ledger. */
export interface BuildState {
  /** Which of the candidate party ids (see `partyCandidates`) are allocated on this ledger. */
  knownParties: ReadonlySet<string>;
  /** The exercised contracts (see `exercisedContractIds`) this ledger knows. */
  contracts: ReadonlyMap<string, StoredContract>;
}

export interface BuildEnvironment {
  connectedSynchronizers: readonly string[];
  templates: TemplateDirectory;
  /** µs since the epoch: contract id discriminators. */
  now: bigint;
  /** 32 random bytes: the submission seed the transaction seed derives from (with the participant id and `now`). */
  submissionSeed: Buffer;
  participantId: string;
}

export interface BuiltTransaction {
  transaction: DamlTransaction;
  /** The exercised ledger contracts' Create nodes (the prepared transaction's metadata carries them). */
  inputContracts: Metadata_InputContract[];
  synchronizerId: string;
}

function collectStrings(json: unknown, out: Set<string>): void {
  if (typeof json === 'string') out.add(json);
  else if (Array.isArray(json)) for (const x of json) collectStrings(x, out);
  else if (json !== null && typeof json === 'object') for (const x of Object.values(json)) collectStrings(x, out);
}

/** Party ids building may need to know about: actAs, readAs and every party-shaped string in the arguments. */
export function partyCandidates(req: Pick<BuildRequest, 'commands' | 'actAs' | 'readAs'>): string[] {
  const strings = new Set<string>([...req.actAs, ...req.readAs]);
  // Both commands that create: a CreateAndExercise's arguments name its contract's parties as a Create's do.
  for (const c of req.commands)
    if (c.kind === 'create' || c.kind === 'createAndExercise') collectStrings(c.createArguments, strings);
  return [...strings].filter(isPartyId);
}

/** The ledger contracts the commands exercise (their state is `BuildState.contracts`). */
export function exercisedContractIds(commands: readonly TransactionCommand[]): string[] {
  return [...new Set(commands.flatMap((c) => (c.kind === 'exercise' ? [c.contractId] : [])))];
}

const sortedUnique = (xs: Iterable<string>) => [...new Set(xs)].sort();

function partiesIn(v: Value | undefined, out: Set<string>): void {
  const s = v?.sum;
  switch (s?.oneofKind) {
    case 'party':
      out.add(s.party);
      return;
    case 'record':
      for (const f of s.record.fields) partiesIn(f.value, out);
      return;
    case 'list':
      for (const e of s.list.elements) partiesIn(e, out);
      return;
    case 'optional':
      partiesIn(s.optional.value, out);
      return;
    default:
      return;
  }
}

/** The requested synchronizer (checked), else that of the input contracts, else the first connected one. */
export function submissionSynchronizer(
  req: BuildRequest,
  env: Pick<BuildEnvironment, 'connectedSynchronizers'>,
  contractSync: string | null,
): string {
  if (req.synchronizerId) {
    if (!env.connectedSynchronizers.includes(req.synchronizerId))
      throw noSynchronizerForSubmission(`synchronizer ${req.synchronizerId} is not connected to this participant`);
    if (contractSync && contractSync !== req.synchronizerId)
      throw noSynchronizerForSubmission(
        `the input contract is assigned to ${contractSync}, not to ${req.synchronizerId}`,
      );
    return req.synchronizerId;
  }
  return contractSync ?? env.connectedSynchronizers[0];
}

/** A root node's seed: Canton's derivation from the transaction seed (HMAC-SHA256 with the node's index). */
const nodeSeed = (transactionSeed: Buffer, nodeId: number) => deriveNodeSeed(transactionSeed, nodeId);

function identifier(t: ResolvedTemplate) {
  return { packageId: t.packageId, moduleName: t.moduleName, entityName: t.entityName };
}

function buildCreate(
  cmd: Extract<TransactionCommand, { kind: 'create' }>,
  req: BuildRequest,
  state: BuildState,
  env: BuildEnvironment,
  seed: Buffer,
): Create {
  const template = env.templates.resolve(cmd.templateId, cmd.template);
  const { entry } = template;
  const args = cmd.createArguments;
  if (args === null || typeof args !== 'object' || Array.isArray(args))
    throw invalidArgument('createArguments must be a JSON object: the generic template model maps it to a record');

  // Strings in catalog party fields are parties: they must be party ids allocated here.
  const fieldParties = (fields: string[] | undefined): string[] | undefined => {
    if (!fields?.length) return undefined;
    const out: string[] = [];
    for (const f of fields)
      for (const v of valuesAtPath(args, f)) {
        if (typeof v !== 'string' || !isPartyId(v))
          throw invalidArgument(
            `Field ${f} of ${cmd.templateId} must hold parties (the template catalog says so), got ${JSON.stringify(v)}`,
          );
        out.push(v);
      }
    const unknown = out.filter((p) => !state.knownParties.has(p));
    if (unknown.length) throw partiesNotKnown(sortedUnique(unknown));
    return out;
  };
  const catalogSignatories = fieldParties(entry?.signatories);
  const catalogObservers = fieldParties(entry?.observers);

  let argument: Value;
  try {
    argument = jsonToValue(args, (s) => state.knownParties.has(s));
  } catch (e) {
    if (e instanceof CantonError) throw invalidArgument(`createArguments: ${e.message}`);
    throw e;
  }
  const inArgs = new Set<string>();
  partiesIn(argument, inArgs);
  const signatories = sortedUnique(catalogSignatories ?? req.actAs);
  if (signatories.length === 0)
    throw damlAuthorizationError(`node NodeId(0) (${templateIdOf(template)}) has no signatories`);
  const observers = sortedUnique(catalogObservers ?? [...inArgs]).filter((p) => !signatories.includes(p));
  const missing = signatories.filter((p) => !req.actAs.includes(p));
  if (missing.length)
    throw damlAuthorizationError(
      `node NodeId(0) (${templateIdOf(template)}) requires authorizers ${signatories.join(',')}, but only ${sortedUnique(req.actAs).join(',')} were given`,
    );
  const stakeholders = sortedUnique([...signatories, ...observers]);
  return {
    lfVersion: LF_VERSION,
    contractId: makeContractId(deriveContractDiscriminator(seed, env.now, stakeholders)),
    packageName: template.packageName,
    templateId: identifier(template),
    argument,
    signatories,
    stakeholders,
  };
}

/** The exercised contract's Create node and creation time: from its created-event blob, else rebuilt from the stored event. */
export function inputContractOf(c: StoredContract): Metadata_InputContract {
  const blob = Buffer.from(c.createdEvent.createdEventBlob ?? '', 'base64');
  if (blob.length) {
    try {
      const ic = Metadata_InputContract.fromBinary(blob);
      if (ic.contract.oneofKind === 'v1' && ic.contract.v1.contractId === c.contractId)
        return { ...ic, eventBlob: blob };
    } catch {
      // fall through: rebuild it
    }
  }
  const [packageId, moduleName, entityName] = c.templateId.split(':');
  return {
    contract: {
      oneofKind: 'v1',
      v1: {
        lfVersion: LF_VERSION,
        contractId: c.contractId,
        packageName: c.packageName,
        templateId: { packageId, moduleName, entityName },
        argument: jsonToValue(c.createdEvent.createArgument, (s) => c.stakeholders.includes(s)),
        signatories: [...c.signatories],
        stakeholders: [...c.stakeholders],
      },
    },
    createdAt: parseIsoMicros(c.createdEvent.createdAt),
    eventBlob: blob,
  };
}

/** The consuming Archive of a contract by its signatories. */
function archiveOf(c: {
  contractId: string;
  packageName: string;
  templateId: { packageId: string; moduleName: string; entityName: string };
  signatories: readonly string[];
  stakeholders: readonly string[];
}): Exercise {
  return {
    lfVersion: LF_VERSION,
    contractId: c.contractId,
    packageName: c.packageName,
    templateId: { ...c.templateId },
    signatories: sortedUnique(c.signatories),
    stakeholders: sortedUnique(c.stakeholders),
    actingParties: sortedUnique(c.signatories),
    choiceId: 'Archive',
    chosenValue: { sum: { oneofKind: 'record', record: { fields: [] } } },
    consuming: true,
    children: [],
    exerciseResult: { sum: { oneofKind: 'unit', unit: {} } },
    choiceObservers: [],
  };
}

function checkArchiveArgument(arg: unknown): void {
  const a = arg ?? {};
  if (a === null || typeof a !== 'object' || Array.isArray(a) || Object.keys(a).length > 0)
    throw invalidArgument('The Archive choice takes no argument: choiceArgument must be {}');
}

function buildArchive(
  cmd: Extract<TransactionCommand, { kind: 'exercise' }>,
  req: BuildRequest,
  state: BuildState,
  env: BuildEnvironment,
): { exercise: Exercise; contract: StoredContract } {
  if (cmd.choice !== 'Archive') throw choiceNotInterpreted(cmd.choice, cmd.templateId);
  if (!isContractId(cmd.contractId))
    throw invalidField('contract_id', `Invalid contract id ${JSON.stringify(cmd.contractId)}`);
  const c = state.contracts.get(cmd.contractId);
  // Committed contracts have Canton's suffix; an unsuffixed id names only a contract stored before ids were suffixed.
  if (!c && isLocalContractId(cmd.contractId)) throw nonSuffixedContractId(cmd.contractId);
  if (!c || c.status !== 'active') throw contractNotFound(cmd.contractId);
  // Visibility before the template: a contract the submitters cannot see is not found, whatever template was named (else
  // WRONGLY_TYPED_CONTRACT would tell a non-stakeholder that it exists, and its template).
  const visible = new Set([...req.actAs, ...req.readAs]);
  if (!c.stakeholders.some((p) => visible.has(p))) throw contractNotFound(cmd.contractId);
  if (!env.templates.names(cmd.template, c)) throw wronglyTypedContract(c.contractId, c.templateId, cmd.templateId);
  checkArchiveArgument(cmd.choiceArgument);
  const missing = c.signatories.filter((p) => !req.actAs.includes(p));
  if (missing.length)
    throw damlAuthorizationError(
      `node NodeId(0) (${c.templateId}) requires authorizers ${sortedUnique(c.signatories).join(',')}, but only ${sortedUnique(req.actAs).join(',')} were given`,
    );
  const [packageId, moduleName, entityName] = c.templateId.split(':');
  return { exercise: archiveOf({ ...c, templateId: { packageId, moduleName, entityName } }), contract: c };
}

/**
 * Builds the nodes of `req.commands`: one root node per command, in order; node ids are their positions. The
 * synchronizer is the requested one, else that of the exercised contracts, else the first connected one.
 */
export function buildTransaction(req: BuildRequest, state: BuildState, env: BuildEnvironment): BuiltTransaction {
  // Without a ledger contract to follow, the synchronizer is settled (and checked) first.
  let synchronizerId = req.commands.some((c) => c.kind === 'exercise')
    ? undefined
    : submissionSynchronizer(req, env, null);
  const nodes: DamlTransaction['nodes'] = [];
  const nodeSeeds: DamlTransaction['nodeSeeds'] = [];
  const transactionSeed = deriveTransactionSeed(env.submissionSeed, env.participantId, env.now);
  const inputContracts: Metadata_InputContract[] = [];
  const contractSyncs = new Set<string>();
  const archived = new Set<string>();
  const add = (versioned: DamlTransaction_Node['versionedNode']) => {
    const nodeId = nodes.length;
    nodes.push({ nodeId: String(nodeId), versionedNode: versioned });
    return nodeId;
  };
  for (const cmd of req.commands) {
    const nodeId = nodes.length;
    const seed = nodeSeed(transactionSeed, nodeId);
    if (cmd.kind === 'create') {
      add({
        oneofKind: 'v1',
        v1: { nodeType: { oneofKind: 'create', create: buildCreate(cmd, req, state, env, seed) } },
      });
    } else if (cmd.kind === 'exercise') {
      const { exercise, contract } = buildArchive(cmd, req, state, env);
      add({ oneofKind: 'v1', v1: { nodeType: { oneofKind: 'exercise', exercise } } });
      if (
        !inputContracts.some((i) => i.contract.oneofKind === 'v1' && i.contract.v1.contractId === contract.contractId)
      )
        inputContracts.push(inputContractOf(contract));
      if (contract.synchronizerId) contractSyncs.add(contract.synchronizerId);
      if (archived.has(contract.contractId)) throw contractNotActive(contract.contractId, contract.templateId);
      archived.add(contract.contractId);
    } else if (cmd.kind === 'createAndExercise') {
      const create = buildCreate({ ...cmd, kind: 'create' }, req, state, env, seed);
      if (cmd.choice !== 'Archive') throw choiceNotInterpreted(cmd.choice, cmd.templateId);
      checkArchiveArgument(cmd.choiceArgument);
      add({ oneofKind: 'v1', v1: { nodeType: { oneofKind: 'create', create } } });
      nodeSeeds.push({ nodeId, seed });
      const exerciseId = nodes.length;
      add({
        oneofKind: 'v1',
        v1: { nodeType: { oneofKind: 'exercise', exercise: archiveOf({ ...create, templateId: create.templateId! }) } },
      });
      nodeSeeds.push({ nodeId: exerciseId, seed: nodeSeed(transactionSeed, exerciseId) });
      continue;
    } else {
      if (cmd.choice !== 'Archive') throw choiceNotInterpreted(cmd.choice, cmd.templateId);
      throw contractKeysNotModelled(cmd.templateId);
    }
    nodeSeeds.push({ nodeId, seed });
  }
  if (synchronizerId === undefined) {
    if (contractSyncs.size > 1)
      throw noSynchronizerForSubmission(
        `the input contracts are assigned to different synchronizers: ${[...contractSyncs].sort().join(', ')}`,
      );
    synchronizerId = submissionSynchronizer(req, env, [...contractSyncs][0] ?? null);
  }
  return {
    transaction: { version: LF_VERSION, roots: nodes.map((n) => n.nodeId), nodes, nodeSeeds },
    inputContracts,
    synchronizerId,
  };
}
