import { randomBytes, randomUUID } from 'node:crypto';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import {
  canReadAs,
  checkPrepareParties,
  decidePrepare,
  estimateTrafficCost,
  expectedSignatureSizes,
  matchUserId,
  partyCandidates,
  permissionDenied,
  validateDisclosedContracts,
  prepareLedgerTime,
  validatePrepareRequest,
  type CostEstimate,
  type PreparedResult,
} from '@ledgerline/domain';
import { ContractsRepository, PartiesRepository, PartySigningKeysRepository } from '@ledgerline/store';
import { LedgerRuntime } from '../../../infrastructure/runtime';
import { ParticipantIdentity } from '../../../infrastructure/participant-identity';
import { TemplateDirectories } from '../../../infrastructure/template-directories';
import { CommandInterpreter } from '../../../infrastructure/command-interpreter';
import { PrepareSubmissionQuery } from './prepare-submission.query';

/** The prepared transaction and its traffic cost estimate (null when the request disables it). */
export type PrepareSubmissionAnswer = PreparedResult & { costEstimation: CostEstimate | null };

/**
 * Authorizes (MatchUserId; ReadAs for every actAs and readAs party, as Canton requires for prepare), validates, reads the
 * parties and the exercised contract, interprets the command (the Daml engine or the generic model) at the ledger time
 * the request asks for, builds the prepared transaction with the ledger time bounds the interpretation imposes, and
 * estimates its traffic cost from its size and the signatures its actAs parties' registered keys (or the request's hints)
 * will add.
 */
@QueryHandler(PrepareSubmissionQuery)
export class PrepareSubmissionHandler implements IQueryHandler<PrepareSubmissionQuery> {
  constructor(
    private readonly runtime: LedgerRuntime,
    private readonly identity: ParticipantIdentity,
    private readonly parties: PartiesRepository,
    private readonly contracts: ContractsRepository,
    private readonly signingKeys: PartySigningKeysRepository,
    private readonly templates: TemplateDirectories,
    private readonly interpreter: CommandInterpreter,
  ) {}

  async execute({ claims, request }: PrepareSubmissionQuery): Promise<PrepareSubmissionAnswer> {
    const userId = matchUserId(claims, request.userId);
    const req = { ...request, userId };
    for (const p of [...req.actAs, ...req.readAs])
      if (!canReadAs(claims, p)) throw permissionDenied(`Claims do not authorize to read as party '${p}'`);
    const { version, costEstimation: hints } = validatePrepareRequest(req);
    const disclosedContracts = validateDisclosedContracts(req.disclosedContracts);
    const db = this.runtime.db;
    const known = await this.parties.getMany(db, partyCandidates(req));
    const knownParties = new Set(known.map((p) => p.party));
    checkPrepareParties(req, { knownParties });
    const cmd = req.commands[0];
    const contract = cmd.kind === 'exercise' ? await this.contracts.get(db, cmd.contractId) : null;
    const env = {
      connectedSynchronizers: this.identity.synchronizers.map((s) => s.id),
      templates: await this.templates.forCommands(req.commands, req.synchronizerId, req.packageIdSelectionPreference),
      now: this.runtime.clock.nowMicros(),
      transactionUuid: randomUUID(),
      submissionSeed: randomBytes(32),
    };
    // The JSON layer's resolution of the templates first, then the validation of the preference (as for submissions).
    for (const c of req.commands) env.templates.resolve(c.templateId, c.template);
    await this.templates.validatePreference(req.packageIdSelectionPreference);
    const ledgerTime = prepareLedgerTime(req, env.now);
    const built = await this.interpreter.interpret(
      { ...req, disclosedContracts },
      { knownParties, contracts: new Map(contract ? [[contract.contractId, contract]] : []) },
      { ...env, ledgerTime },
    );
    const prepared = decidePrepare(req, version, built, env);
    if (!hints) return { ...prepared, costEstimation: null };
    const keys = await this.signingKeys.signingKeys(db, req.actAs);
    const keysOf = new Map(
      [...keys].map(([party, k]) => [party, { threshold: k.threshold, keySpecs: k.keys.map((x) => x.keySpec) }]),
    );
    const costEstimation = estimateTrafficCost({
      preparedTransactionBytes: prepared.bytes.length,
      signatureSizes: expectedSignatureSizes(req.actAs, keysOf, hints),
      participantId: this.identity.participantId,
      synchronizerId: built.synchronizerId,
      confirmingParties: req.actAs,
      now: this.runtime.clock.nowMicros(),
    });
    return { ...prepared, costEstimation };
  }
}
