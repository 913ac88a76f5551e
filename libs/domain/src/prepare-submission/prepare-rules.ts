/**
 * POST /v2/interactive-submission/prepare: the transaction builder's nodes (transaction-builder/, the generic template
 * model) wrapped as a Canton `PreparedTransaction` (one root node, node seeds, metadata with submitter info, synchronizer,
 * transaction UUID, preparation time and the exercised contract as input contract) and its hash (V2 by default, V3 on
 * request). Pure: time, randomness and the ledger state it needs are inputs.
 */
import { PreparedTransaction } from '@canton-network/core-ledger-proto';
import {
  computePreparedTransactionHash,
  isPartyId,
  isUniqueIdentifier,
  type HashingSchemeVersionNumber,
} from '@ledgerline/canton';
import { invalidField, missingField } from '../errors';
import { parseIsoMicros } from '../ledger/time';
import { partiesNotKnown } from '../transaction-builder/builder-errors';
import type { InterpretedTransaction } from '../command-interpretation/interpret-commands';
import type { TemplateDirectory } from '../transaction-builder/template-directory';
import { commandName, type TransactionCommand } from '../transaction-builder/commands';
import type { DisclosedContractInput } from '../command-interpretation/disclosed-contracts';
import { failedToPrepare } from './prepare-errors';
import {
  validateCostEstimationHints,
  type CostEstimationHints,
  type CostEstimationHintsInput,
} from './cost-estimation';

export type PrepareCommand = TransactionCommand;

const sortedUnique = (xs: Iterable<string>) => [...new Set(xs)].sort();

export interface PrepareRequest {
  /** After MatchUserId. */
  userId: string;
  commandId: string;
  commands: PrepareCommand[];
  actAs: string[];
  readAs: string[];
  disclosedContracts: DisclosedContractInput[];
  /** '' = choose. */
  synchronizerId: string;
  /** Package ids pinning the package of a `#name` (see packages/package-preference.ts). */
  packageIdSelectionPreference: string[];
  /** Proto enum name; '' or UNSPECIFIED = V2. */
  hashingSchemeVersion: string;
  /** ISO timestamp or ''. */
  maxRecordTime: string;
  minLedgerTime: { abs?: string; relSeconds?: number } | null;
  verboseHashing: boolean;
  /** CostEstimationHints; absent or null: estimate without hints. */
  estimateTrafficCost?: CostEstimationHintsInput | null;
}

/** A prepare request's checked settings. */
export interface ValidatedPrepare {
  version: HashingSchemeVersionNumber;
  /** null: no cost estimate (`estimateTrafficCost.disabled`). */
  costEstimation: CostEstimationHints;
}

/** What the prepare decision reads from the ledger. */
export interface PrepareState {
  /** Which of the candidate party ids (see `partyCandidates`) are allocated on this ledger. */
  knownParties: ReadonlySet<string>;
}

export interface PrepareEnvironment {
  connectedSynchronizers: readonly string[];
  templates: TemplateDirectory;
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
export function validatePrepareRequest(req: PrepareRequest): ValidatedPrepare {
  if (!req.commandId) throw missingField('command_id');
  if (!/^[A-Za-z0-9\-_ :#/.]{1,255}$/.test(req.commandId))
    throw invalidField('command_id', `Expected a valid LedgerString, got ${JSON.stringify(req.commandId)}`);
  if (req.commands.length === 0) throw missingField('commands');
  if (req.actAs.length === 0) throw missingField('act_as');
  for (const p of req.actAs) if (!isPartyId(p)) throw invalidField('act_as', `Invalid party id ${JSON.stringify(p)}`);
  for (const p of req.readAs) if (!isPartyId(p)) throw invalidField('read_as', `Invalid party id ${JSON.stringify(p)}`);
  if (req.synchronizerId && !isUniqueIdentifier(req.synchronizerId))
    throw invalidField('synchronizer_id', `Invalid unique identifier \`${req.synchronizerId}\``);
  // SubmitRequestValidator.validatePrepare: the cost estimation hints, then the hashing scheme version.
  const costEstimation = validateCostEstimationHints(req.estimateTrafficCost ?? null);
  const v = HASHING_VERSIONS[req.hashingSchemeVersion];
  if (!v)
    throw invalidField(
      'hashing_scheme_version',
      `Hashing scheme version ${req.hashingSchemeVersion} is not supported on this participant (supported: V2, V3)`,
    );
  if (req.maxRecordTime) timestampMicros(req.maxRecordTime, 'max_record_time');
  if (req.minLedgerTime?.abs) timestampMicros(req.minLedgerTime.abs, 'min_ledger_time');
  if (req.commands.length > 1)
    throw failedToPrepare(
      'Transaction with multiple root nodes are not supported: submit one command per prepared transaction',
    );
  return { version: v, costEstimation };
}

function timestampMicros(s: string, field: string): bigint {
  try {
    return parseIsoMicros(s);
  } catch {
    throw invalidField(field, `Invalid timestamp ${JSON.stringify(s)}`);
  }
}

/** Every actAs party must be allocated here (before the commands are interpreted). */
export function checkPrepareParties(
  req: Pick<PrepareRequest, 'actAs'>,
  state: Pick<PrepareState, 'knownParties'>,
): void {
  const unknown = sortedUnique(req.actAs.filter((p) => !state.knownParties.has(p)));
  if (unknown.length) throw partiesNotKnown(unknown);
}

/**
 * The ledger effective time the commands of a validated request run at (Canton's `CommandsValidator.validateLedgerTime`):
 * now, raised to `minLedgerTime.abs`, or now + `minLedgerTime.rel`.
 */
export function prepareLedgerTime(req: Pick<PrepareRequest, 'minLedgerTime'>, now: bigint): bigint {
  if (req.minLedgerTime?.abs) {
    const abs = parseIsoMicros(req.minLedgerTime.abs);
    return abs > now ? abs : now;
  }
  if (req.minLedgerTime?.relSeconds !== undefined) return now + BigInt(Math.round(req.minLedgerTime.relSeconds * 1e6));
  return now;
}

/**
 * The ledger time bounds of the prepared metadata (`minLedgerEffectiveTime`, `maxLedgerEffectiveTime`). A transaction the
 * engine interpreted carries the bounds its time reads impose (Canton's `PreparedTransactionEncoder` writes the
 * transaction's time boundaries; none when it read no time). The generic model reads no time; there `minLedgerTime`
 * becomes the lower bound.
 */
function preparedLedgerTimeBounds(
  req: PrepareRequest,
  built: InterpretedTransaction,
  now: bigint,
): { min?: bigint; max?: bigint } {
  if (built.ledgerTimeBounds) return built.ledgerTimeBounds;
  if (req.minLedgerTime?.abs) return { min: parseIsoMicros(req.minLedgerTime.abs) };
  if (req.minLedgerTime?.relSeconds !== undefined)
    return { min: now + BigInt(Math.round(req.minLedgerTime.relSeconds * 1e6)) };
  return {};
}

/** The prepared transaction of a validated request from its interpreted transaction (see interpretCommands), hashed. */
export function decidePrepare(
  req: PrepareRequest,
  version: HashingSchemeVersionNumber,
  built: InterpretedTransaction,
  env: PrepareEnvironment,
): PreparedResult {
  const { transaction, inputContracts, synchronizerId } = built;
  // A CreateAndExerciseCommand makes two root nodes; an interactive submission has one.
  if (transaction.roots.length > 1)
    throw failedToPrepare(
      `Transaction with multiple root nodes are not supported: ${commandName(req.commands[0])} makes ${transaction.roots.length} root nodes`,
    );
  const bounds = preparedLedgerTimeBounds(req, built, env.now);

  const pt = PreparedTransaction.create({
    transaction,
    metadata: {
      submitterInfo: { actAs: sortedUnique(req.actAs), commandId: req.commandId },
      synchronizerId,
      mediatorGroup: 0,
      transactionUuid: env.transactionUuid,
      preparationTime: env.now,
      inputContracts,
      minLedgerEffectiveTime: bounds.min,
      maxLedgerEffectiveTime: bounds.max,
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
