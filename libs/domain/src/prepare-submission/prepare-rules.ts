/**
 * POST /v2/interactive-submission/prepare for the generic template model (no Daml engine, no packages):
 *
 * - CreateCommand: the JSON arguments become a Daml-LF value without type information (`jsonToValue` of libs/canton:
 *   object → record with labels in key order, array → list, integer → int64, other number → numeric, boolean → bool,
 *   null → optional none, a known party id → party, other string → text). Signatories = actAs; observers = the other
 *   parties found in the arguments; a template catalog entry overrides either with named fields.
 * - ExerciseCommand with the choice `Archive`: consuming, acting parties = the contract's signatories (all in actAs); the
 *   contract must be active. Any other choice is refused (choices are not interpreted).
 *
 * The result is a Canton `PreparedTransaction` (one root node, node seeds, metadata with submitter info, synchronizer,
 * transaction UUID, preparation time and the exercised contract as input contract) and its hash (V2 by default, V3 on
 * request). Pure: time, randomness and the ledger state it needs are inputs.
 */
import { createHash } from 'node:crypto';
import {
  Metadata_InputContract,
  PreparedTransaction,
  type Create,
  type DamlTransaction_Node,
  type Exercise,
  type Value,
} from '@canton-network/core-ledger-proto';
import {
  computePreparedTransactionHash,
  isContractId,
  isPartyId,
  isUniqueIdentifier,
  jsonToValue,
  makeContractId,
  CantonError,
  type HashingSchemeVersionNumber,
} from '@ledgerline/canton';
import { invalidArgument, invalidField, missingField } from '../errors';
import { parseIsoMicros } from '../ledger/time';
import type { StoredCreatedEvent } from '../ledger/updates';
import {
  choiceNotInterpreted,
  contractNotFound,
  damlAuthorizationError,
  failedToPrepare,
  noSynchronizerForSubmission,
  partiesNotKnown,
  wronglyTypedContract,
} from './prepare-errors';
import { catalogEntry, valuesAtPath, type TemplateCatalog } from './template-catalog';
import { resolveTemplate, templateIdOf, type ResolvedTemplate, type TemplateRef } from './template-id';

export const LF_VERSION = '2.1';

export type PrepareCommand =
  | { kind: 'create'; templateId: string; template: TemplateRef; createArguments: unknown }
  | { kind: 'exercise'; templateId: string; template: TemplateRef; contractId: string; choice: string; choiceArgument: unknown }
  | { kind: 'unsupported'; name: string };

export interface PrepareRequest {
  /** After MatchUserId. */
  userId: string;
  commandId: string;
  commands: PrepareCommand[];
  actAs: string[];
  readAs: string[];
  /** '' = choose. */
  synchronizerId: string;
  /** Proto enum name; '' or UNSPECIFIED = V2. */
  hashingSchemeVersion: string;
  /** ISO timestamp or ''. */
  maxRecordTime: string;
  minLedgerTime: { abs?: string; relSeconds?: number } | null;
  verboseHashing: boolean;
}

/** What the prepare decision reads from the ledger. */
export interface PrepareState {
  /** Which of the candidate party ids (see `partyCandidates`) are allocated on this ledger. */
  knownParties: ReadonlySet<string>;
  /** The exercised contract, when the command is an exercise (null when unknown). */
  contract: StoredContract | null;
}

export interface StoredContract {
  contractId: string;
  templateId: string;
  packageName: string;
  signatories: string[];
  stakeholders: string[];
  status: 'active' | 'in_flight' | 'archived';
  synchronizerId: string | null;
  createdEvent: StoredCreatedEvent;
}

export interface PrepareEnvironment {
  connectedSynchronizers: readonly string[];
  catalog: TemplateCatalog;
  /** µs since the epoch. */
  now: bigint;
  transactionUuid: string;
  /** 32 random bytes: the submission seed node seeds derive from. */
  submissionSeed: Buffer;
}

export interface PreparedResult {
  preparedTransaction: PreparedTransaction;
  bytes: Buffer;
  /** Raw 32-byte hash to sign. */
  hash: Buffer;
  version: HashingSchemeVersionNumber;
  hashingDetails: string;
}

const HASHING_VERSIONS: Record<string, HashingSchemeVersionNumber | undefined> = {
  '': 2,
  HASHING_SCHEME_VERSION_UNSPECIFIED: 2,
  HASHING_SCHEME_VERSION_V2: 2,
  HASHING_SCHEME_VERSION_V3: 3,
};

export const hashingSchemeVersionName = (v: HashingSchemeVersionNumber) => `HASHING_SCHEME_VERSION_V${v}`;

/** Field checks that need no ledger state (the validator's INVALID_FIELD / MISSING_FIELD). */
export function validatePrepareRequest(req: PrepareRequest): HashingSchemeVersionNumber {
  if (!req.commandId) throw missingField('command_id');
  if (!/^[A-Za-z0-9\-_ :#/.]{1,255}$/.test(req.commandId)) throw invalidField('command_id', `Expected a valid LedgerString, got ${JSON.stringify(req.commandId)}`);
  if (req.commands.length === 0) throw missingField('commands');
  if (req.actAs.length === 0) throw missingField('act_as');
  for (const p of req.actAs) if (!isPartyId(p)) throw invalidField('act_as', `Invalid party id ${JSON.stringify(p)}`);
  for (const p of req.readAs) if (!isPartyId(p)) throw invalidField('read_as', `Invalid party id ${JSON.stringify(p)}`);
  if (req.synchronizerId && !isUniqueIdentifier(req.synchronizerId))
    throw invalidField('synchronizer_id', `Invalid unique identifier \`${req.synchronizerId}\``);
  const v = HASHING_VERSIONS[req.hashingSchemeVersion];
  if (!v) throw invalidField('hashing_scheme_version', `Hashing scheme version ${req.hashingSchemeVersion} is not supported on this participant (supported: V2, V3)`);
  if (req.maxRecordTime) timestampMicros(req.maxRecordTime, 'max_record_time');
  if (req.minLedgerTime?.abs) timestampMicros(req.minLedgerTime.abs, 'min_ledger_time');
  if (req.commands.length > 1)
    throw failedToPrepare('Transaction with multiple root nodes are not supported: submit one command per prepared transaction');
  return v;
}

function timestampMicros(s: string, field: string): bigint {
  try {
    return parseIsoMicros(s);
  } catch {
    throw invalidField(field, `Invalid timestamp ${JSON.stringify(s)}`);
  }
}

function collectStrings(json: unknown, out: Set<string>): void {
  if (typeof json === 'string') out.add(json);
  else if (Array.isArray(json)) for (const x of json) collectStrings(x, out);
  else if (json !== null && typeof json === 'object') for (const x of Object.values(json)) collectStrings(x, out);
}

/** Party ids the decision may need to know about: actAs, readAs and every party-shaped string in the arguments. */
export function partyCandidates(req: PrepareRequest): string[] {
  const strings = new Set<string>([...req.actAs, ...req.readAs]);
  for (const c of req.commands) if (c.kind === 'create') collectStrings(c.createArguments, strings);
  return [...strings].filter(isPartyId);
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

function chooseSynchronizer(req: PrepareRequest, env: PrepareEnvironment, contractSync: string | null): string {
  if (req.synchronizerId) {
    if (!env.connectedSynchronizers.includes(req.synchronizerId))
      throw noSynchronizerForSubmission(`synchronizer ${req.synchronizerId} is not connected to this participant`);
    if (contractSync && contractSync !== req.synchronizerId)
      throw noSynchronizerForSubmission(`the input contract is assigned to ${contractSync}, not to ${req.synchronizerId}`);
    return req.synchronizerId;
  }
  return contractSync ?? env.connectedSynchronizers[0];
}

const nodeSeed = (submissionSeed: Buffer, nodeId: number) =>
  createHash('sha256').update(submissionSeed).update(Buffer.from([nodeId >>> 24, (nodeId >>> 16) & 255, (nodeId >>> 8) & 255, nodeId & 255])).digest();

/** Contract id discriminator from the node seed, the preparation time and the stakeholders (as Canton derives it). */
function discriminator(seed: Buffer, time: bigint, stakeholders: string[]): Buffer {
  const h = createHash('sha256').update(seed);
  const t = Buffer.alloc(8);
  t.writeBigInt64BE(time);
  h.update(t);
  for (const p of stakeholders) h.update(Buffer.from(`${p.length}:${p}`, 'utf8'));
  return h.digest();
}

function identifier(t: ResolvedTemplate) {
  return { packageId: t.packageId, moduleName: t.moduleName, entityName: t.entityName };
}

function buildCreate(cmd: Extract<PrepareCommand, { kind: 'create' }>, req: PrepareRequest, state: PrepareState, env: PrepareEnvironment, seed: Buffer): Create {
  const entry0 = catalogEntry(env.catalog, cmd.templateId, cmd.templateId);
  const template = resolveTemplate(cmd.template, entry0?.packageName);
  const entry = entry0 ?? catalogEntry(env.catalog, cmd.templateId, templateIdOf(template));
  const args = cmd.createArguments;
  if (args === null || typeof args !== 'object' || Array.isArray(args))
    throw invalidArgument('createArguments must be a JSON object: the generic template model maps it to a record');

  // Strings in catalog party fields are parties: they must be party ids allocated here.
  const fieldParties = (fields: string[] | undefined): string[] | undefined => {
    if (!fields?.length) return undefined;
    const out: string[] = [];
    for (const f of fields)
      for (const v of valuesAtPath(args, f)) {
        if (typeof v !== 'string' || !isPartyId(v)) throw invalidArgument(`Field ${f} of ${cmd.templateId} must hold parties (the template catalog says so), got ${JSON.stringify(v)}`);
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
  if (signatories.length === 0) throw damlAuthorizationError(`node NodeId(0) (${templateIdOf(template)}) has no signatories`);
  const observers = sortedUnique(catalogObservers ?? [...inArgs]).filter((p) => !signatories.includes(p));
  const missing = signatories.filter((p) => !req.actAs.includes(p));
  if (missing.length)
    throw damlAuthorizationError(
      `node NodeId(0) (${templateIdOf(template)}) requires authorizers ${signatories.join(',')}, but only ${sortedUnique(req.actAs).join(',')} were given`,
    );
  const stakeholders = sortedUnique([...signatories, ...observers]);
  return {
    lfVersion: LF_VERSION,
    contractId: makeContractId(discriminator(seed, env.now, stakeholders)),
    packageName: template.packageName,
    templateId: identifier(template),
    argument,
    signatories,
    stakeholders,
  };
}

/** The exercised contract's Create node and creation time: from its created-event blob, else rebuilt from the stored event. */
function inputContractOf(c: StoredContract): Metadata_InputContract {
  const blob = Buffer.from(c.createdEvent.createdEventBlob ?? '', 'base64');
  if (blob.length) {
    try {
      const ic = Metadata_InputContract.fromBinary(blob);
      if (ic.contract.oneofKind === 'v1' && ic.contract.v1.contractId === c.contractId) return { ...ic, eventBlob: blob };
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

function buildArchive(cmd: Extract<PrepareCommand, { kind: 'exercise' }>, req: PrepareRequest, state: PrepareState): { exercise: Exercise; input: Metadata_InputContract } {
  if (cmd.choice !== 'Archive') throw choiceNotInterpreted(cmd.choice, cmd.templateId);
  if (!isContractId(cmd.contractId)) throw invalidField('contract_id', `Invalid contract id ${JSON.stringify(cmd.contractId)}`);
  const c = state.contract;
  if (!c || c.contractId !== cmd.contractId || c.status !== 'active') throw contractNotFound(cmd.contractId);
  const [packageId, moduleName, entityName] = c.templateId.split(':');
  const ref = cmd.template;
  const samePackage = ref.packageRef.startsWith('#') ? ref.packageRef.slice(1) === c.packageName : ref.packageRef === packageId;
  if (!samePackage || ref.moduleName !== moduleName || ref.entityName !== entityName)
    throw wronglyTypedContract(c.contractId, c.templateId, cmd.templateId);
  const visible = new Set([...req.actAs, ...req.readAs]);
  if (!c.stakeholders.some((p) => visible.has(p))) throw contractNotFound(cmd.contractId);
  const arg = cmd.choiceArgument ?? {};
  if (arg === null || typeof arg !== 'object' || Array.isArray(arg) || Object.keys(arg).length > 0)
    throw invalidArgument('The Archive choice takes no argument: choiceArgument must be {}');
  const missing = c.signatories.filter((p) => !req.actAs.includes(p));
  if (missing.length)
    throw damlAuthorizationError(
      `node NodeId(0) (${c.templateId}) requires authorizers ${sortedUnique(c.signatories).join(',')}, but only ${sortedUnique(req.actAs).join(',')} were given`,
    );
  return {
    exercise: {
      lfVersion: LF_VERSION,
      contractId: c.contractId,
      packageName: c.packageName,
      templateId: { packageId, moduleName, entityName },
      signatories: sortedUnique(c.signatories),
      stakeholders: sortedUnique(c.stakeholders),
      actingParties: sortedUnique(c.signatories),
      choiceId: 'Archive',
      chosenValue: { sum: { oneofKind: 'record', record: { fields: [] } } },
      consuming: true,
      children: [],
      exerciseResult: { sum: { oneofKind: 'unit', unit: {} } },
      choiceObservers: [],
    },
    input: inputContractOf(c),
  };
}

/** Builds the prepared transaction of a validated request and hashes it. */
export function decidePrepare(req: PrepareRequest, version: HashingSchemeVersionNumber, state: PrepareState, env: PrepareEnvironment): PreparedResult {
  const unknown = sortedUnique(req.actAs.filter((p) => !state.knownParties.has(p)));
  if (unknown.length) throw partiesNotKnown(unknown);
  const cmd = req.commands[0];
  if (cmd.kind === 'unsupported')
    throw invalidArgument(`${cmd.name} is not supported by the generic template model: use CreateCommand, or ExerciseCommand with the choice Archive`);
  const seed = nodeSeed(env.submissionSeed, 0);
  let node: DamlTransaction_Node['versionedNode'];
  const inputContracts: Metadata_InputContract[] = [];
  let synchronizerId: string;
  if (cmd.kind === 'create') {
    synchronizerId = chooseSynchronizer(req, env, null);
    node = { oneofKind: 'v1', v1: { nodeType: { oneofKind: 'create', create: buildCreate(cmd, req, state, env, seed) } } };
  } else {
    const { exercise, input } = buildArchive(cmd, req, state);
    synchronizerId = chooseSynchronizer(req, env, state.contract!.synchronizerId);
    node = { oneofKind: 'v1', v1: { nodeType: { oneofKind: 'exercise', exercise } } };
    inputContracts.push(input);
  }
  let minLedgerEffectiveTime: bigint | undefined;
  if (req.minLedgerTime?.abs) minLedgerEffectiveTime = parseIsoMicros(req.minLedgerTime.abs);
  else if (req.minLedgerTime?.relSeconds !== undefined) minLedgerEffectiveTime = env.now + BigInt(Math.round(req.minLedgerTime.relSeconds * 1e6));

  const pt = PreparedTransaction.create({
    transaction: {
      version: LF_VERSION,
      roots: ['0'],
      nodes: [{ nodeId: '0', versionedNode: node }],
      nodeSeeds: [{ nodeId: 0, seed }],
    },
    metadata: {
      submitterInfo: { actAs: sortedUnique(req.actAs), commandId: req.commandId },
      synchronizerId,
      mediatorGroup: 0,
      transactionUuid: env.transactionUuid,
      preparationTime: env.now,
      inputContracts,
      minLedgerEffectiveTime,
      maxRecordTime: req.maxRecordTime ? parseIsoMicros(req.maxRecordTime) : undefined,
    },
  });
  const h = computePreparedTransactionHash(pt, version);
  return {
    preparedTransaction: pt,
    bytes: Buffer.from(PreparedTransaction.toBinary(pt)),
    hash: h.hash,
    version,
    hashingDetails:
      `Hashing scheme V${version}: hash = SHA-256(purpose 48 ‖ 0x0${version} ‖ transaction hash ‖ metadata hash); ` +
      `transaction hash ${h.transactionHash.toString('hex')}, metadata hash ${h.metadataHash.toString('hex')}, hash ${h.hash.toString('hex')}`,
  };
}
