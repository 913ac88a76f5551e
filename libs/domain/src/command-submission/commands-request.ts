import { isContractId, isPartyId, isUniqueIdentifier } from '@ledgerline/canton';
import { canActAs, canReadAs, type Claims } from '../auth/rights';
import { matchUserId } from '../auth/requirements';
import {
  ErrorCategories as C,
  invalidArgument,
  invalidField,
  LedgerError,
  missingField,
  notFound,
  permissionDenied,
} from '../errors';
import { parseIsoMicros } from '../ledger/time';
import { validateDeduplicationPeriod, type DeduplicationPeriod } from '../ledger-model/deduplication';
import { choiceNotInterpreted } from '../transaction-builder/builder-errors';
import type { TransactionCommand } from '../transaction-builder/commands';
import type { TemplateDirectory } from '../transaction-builder/template-directory';
import { validateUserId } from '../users/user-rules';
import {
  validateDisclosedContracts,
  type DisclosedContract,
  type DisclosedContractInput,
} from '../command-interpretation/disclosed-contracts';

/**
 * Command submission (POST /v2/commands/submit-and-wait, -for-transaction, async/submit) as Canton's JsCommandService,
 * CommandServiceAuthorization and CommandsValidator (ledger-json-api, ledger-api-core) process it: the JSON layer, then
 * authorization, then validation, each in the reference's order; the first failure wins.
 */

/** A JsCommands body, decoded (the wire layer checked the JSON types; absent keys hold their defaults). */
export interface CommandsRequest {
  commands: TransactionCommand[];
  commandId: string;
  actAs: string[];
  /** '' = the token's user. */
  userId: string;
  readAs: string[];
  workflowId: string;
  deduplicationPeriod:
    { kind: 'empty' } | { kind: 'duration'; seconds: bigint; nanos: number } | { kind: 'offset'; offset: bigint };
  /** ISO timestamp or ''. */
  minLedgerTimeAbs: string;
  minLedgerTimeRel: { seconds: number; nanos: number } | null;
  /** '' = generated. */
  submissionId: string;
  disclosedContracts: DisclosedContractInput[];
  synchronizerId: string;
  /** Package ids pinning the package of a `#name` (see packages/package-preference.ts). */
  packageIdSelectionPreference: string[];
  prefetchContractKeys: Array<{ limit: number | null }>;
  tapsMaxPasses: number | null;
}

export interface ValidCommands {
  userId: string;
  commandId: string;
  submissionId: string;
  workflowId: string;
  actAs: string[];
  readAs: string[];
  synchronizerId: string;
  /** µs since the epoch; undefined = no bound. */
  minLedgerTime: bigint | undefined;
  deduplicationPeriod: DeduplicationPeriod;
  disclosedContracts: DisclosedContract[];
}

const LEDGER_STRING = /^[A-Za-z0-9\-_ :#/.]{1,255}$/;

/**
 * The JSON layer (Canton's ProtocolConverters.Commands, TranscodePackageIdResolver and SchemaProcessors), before
 * authorization: `actAs` present and its first party valid; with a `#package-name` template, a well-formed
 * `synchronizerId`; then per command its template (`templates` refuses unknown packages and templates in strict mode) and
 * its choice — for a template of a package not stored here only Archive (the generic model): another choice is the JSON
 * layer's INVALID_ARGUMENT (a CreateAndExerciseCommand's after its create arguments, an ExerciseByKeyCommand's before its
 * key). Templates of stored packages go on to the engine, which knows their choices.
 */
export function checkCommandsJsonLayer(req: CommandsRequest, templates: TemplateDirectory): void {
  if (req.actAs.length === 0) throw missingField('act_as/actAs');
  if (!isPartyId(req.actAs[0])) throw invalidArgument(`Invalid party in actAs/act_as: ${req.actAs[0]}`);
  if (
    req.synchronizerId &&
    !isUniqueIdentifier(req.synchronizerId) &&
    req.commands.some((c) => c.template.packageRef.startsWith('#'))
  )
    throw invalidSynchronizerId(req.synchronizerId);
  for (const c of req.commands) {
    const t = templates.resolve(c.templateId, c.template);
    // A template of a stored package may run on the Daml engine, which knows its choices (interpretCommands decides).
    if (c.kind !== 'create' && c.choice !== 'Archive' && !t.stored) throw choiceNotInterpreted(c.choice, c.templateId);
  }
}

const invalidSynchronizerId = (id: string) =>
  invalidField('synchronizer_id', `Invalid unique identifier \`${id}\` with missing namespace.`);

/** CommandServiceAuthorization: MatchUserId, ActAs for every actAs party, ReadAs for every other readAs party. Returns the user id. */
export function authorizeCommands(claims: Claims, req: CommandsRequest): string {
  const userId = matchUserId(claims, req.userId);
  for (const p of req.actAs)
    if (!canActAs(claims, p)) throw permissionDenied(`Claims do not authorize to act as party '${p}'`);
  for (const p of req.readAs)
    if (!req.actAs.includes(p) && !canReadAs(claims, p))
      throw permissionDenied(`Claims do not authorize to read as party '${p}'`);
  return userId;
}

/** CommandsValidator.validateCommands, in its order. `submissionId` is the request's or a generated one. */
export function validateCommands(
  req: CommandsRequest,
  userId: string,
  submissionId: string,
  env: { now: bigint; maxDeduplicationMicros: bigint },
): ValidCommands {
  if (req.workflowId && !LEDGER_STRING.test(req.workflowId))
    throw invalidField('workflow_id', `Expected a valid LedgerString, got ${JSON.stringify(req.workflowId)}`);
  if (!userId) throw missingField('user_id');
  validateUserId(userId);
  if (!req.commandId) throw missingField('command_id');
  if (!LEDGER_STRING.test(req.commandId))
    throw invalidField('command_id', `Expected a valid LedgerString, got ${JSON.stringify(req.commandId)}`);
  if (!LEDGER_STRING.test(submissionId))
    throw invalidField('submission_id', `Expected a valid LedgerString, got ${JSON.stringify(submissionId)}`);
  for (const p of [...req.actAs, ...req.readAs])
    if (!isPartyId(p)) throw invalidArgument(`Invalid party: ${JSON.stringify(p)}`);
  if (req.synchronizerId && !isUniqueIdentifier(req.synchronizerId)) throw invalidSynchronizerId(req.synchronizerId);
  if (req.commands.length === 0) throw missingField('commands');
  for (const c of req.commands) {
    if (c.kind !== 'exercise') continue;
    if (!c.contractId) throw missingField('contract_id');
    if (!isContractId(c.contractId))
      throw invalidField('contract_id', `cannot parse ContractId ${JSON.stringify(c.contractId)}`);
    if (!/^[A-Za-z_][A-Za-z0-9_$]*$/.test(c.choice))
      throw invalidField('choice', `Invalid choice name ${JSON.stringify(c.choice)}`);
  }
  let minLedgerTime: bigint | undefined;
  if (req.minLedgerTimeAbs && req.minLedgerTimeRel)
    throw invalidArgument('min_ledger_time_abs cannot be specified at the same time as min_ledger_time_rel');
  if (req.minLedgerTimeAbs) {
    let abs: bigint;
    try {
      abs = parseIsoMicros(req.minLedgerTimeAbs);
    } catch {
      throw invalidField('min_ledger_time_abs', `Invalid timestamp ${JSON.stringify(req.minLedgerTimeAbs)}`);
    }
    minLedgerTime = abs > env.now ? abs : env.now;
  } else if (req.minLedgerTimeRel) {
    const { seconds, nanos } = req.minLedgerTimeRel;
    if (seconds < 0 || nanos < 0) throw invalidField('min_ledger_time_rel', 'Duration must be positive');
    minLedgerTime = env.now + BigInt(seconds) * 1_000_000n + BigInt(Math.trunc(nanos / 1000));
  }
  const deduplicationPeriod = validateDeduplicationPeriod(req.deduplicationPeriod, env.maxDeduplicationMicros);
  const disclosedContracts = validateDisclosedContracts(req.disclosedContracts);
  for (const k of req.prefetchContractKeys)
    if (k.limit === 0) throw invalidArgument('The prefetch contract key limit must be positive');
  if (req.tapsMaxPasses !== null && req.tapsMaxPasses <= 0) throw invalidArgument('taps_max_passes must be positive');
  return {
    userId,
    commandId: req.commandId,
    submissionId,
    workflowId: req.workflowId,
    actAs: [...new Set(req.actAs)],
    readAs: [...new Set(req.readAs)],
    synchronizerId: req.synchronizerId,
    minLedgerTime,
    deduplicationPeriod,
    disclosedContracts,
  };
}

/** Hosting of a submitter on this participant: a local party may submit; an external one only confirms. */
export type SubmitterHosting = 'local' | 'external' | 'unknown';

export const unknownSubmitters = (parties: readonly string[]) =>
  notFound(
    'UNKNOWN_SUBMITTERS',
    `The participant is not connected to any synchronizer where the given submitters are known: ${parties.join(', ')}`,
    parties.map((p) => ['PARTY', p]),
  );

export const noSynchronizerForSubmitters = (several: boolean) =>
  notFound(
    'NO_SYNCHRONIZER_ON_WHICH_ALL_SUBMITTERS_CAN_SUBMIT',
    several
      ? 'Not connected to a synchronizer on which this participant can submit for all submitters'
      : 'This participant cannot submit as the given submitter on any connected synchronizer',
  );

export const invalidPrescribedSynchronizer = (id: string, reason: string) =>
  new LedgerError(
    'INVALID_PRESCRIBED_SYNCHRONIZER_ID',
    C.InvalidGivenCurrentSystemStateOther,
    `Cannot submit transaction to prescribed synchronizer \`${id}\` because: ${reason}`,
  );

/**
 * Routing (Canton's TransactionRoutingError): every submitter must be known here (UNKNOWN_SUBMITTERS) and hosted with
 * submission permission — an external party, hosted with confirmation only, submits through prepare and execute
 * (NO_SYNCHRONIZER_ON_WHICH_ALL_SUBMITTERS_CAN_SUBMIT); a prescribed synchronizer must be connected.
 */
export function routeSubmission(
  actAs: readonly string[],
  hosting: ReadonlyMap<string, SubmitterHosting>,
  synchronizerId: string,
  connected: readonly string[],
): void {
  const unknown = actAs.filter((p) => (hosting.get(p) ?? 'unknown') === 'unknown');
  if (unknown.length) throw unknownSubmitters(unknown);
  if (actAs.some((p) => hosting.get(p) === 'external')) throw noSynchronizerForSubmitters(actAs.length > 1);
  if (synchronizerId && !connected.includes(synchronizerId))
    throw invalidPrescribedSynchronizer(synchronizerId, 'the participant is not connected to it');
}
