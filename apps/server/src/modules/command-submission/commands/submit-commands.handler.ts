import { randomBytes, randomUUID } from 'node:crypto';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import {
  authorizeCommands,
  authorizeUpdateFormat,
  checkCommandsJsonLayer,
  checkWellFormed,
  defaultTransactionFormat,
  exercisedContractIds,
  partyCandidates,
  routeSubmission,
  validateCommands,
  validateUpdateFormat,
} from '@ledgerline/domain';
import { ContractsRepository } from '@ledgerline/store';
import { LedgerRuntime } from '../../../infrastructure/runtime';
import { ParticipantIdentity } from '../../../infrastructure/participant-identity';
import { TemplateDirectories } from '../../../infrastructure/template-directories';
import { CommandInterpreter } from '../../../infrastructure/command-interpreter';
import { TransactionSubmissionService } from '../../transaction-submission/transaction-submission.service';
import { SubmittedTransactions } from '../../transaction-submission/submitted-transactions';
import { SubmitterHostingCache } from '../submitter-hosting.cache';
import { SubmitCommandsCommand } from './submit-commands.command';

/**
 * Commands of local parties, in the reference's order (Canton's JsCommandService, CommandServiceAuthorization,
 * CommandsValidator, then interpretation and routing): the JSON layer → authorization (the caller's claims are the
 * actAs parties' consent) → validation → interpretation (the Daml engine for templates of stored packages, else the
 * generic template model; as prepare does) → routing (local submitters, the prescribed synchronizer) → the submission
 * pipeline shared with executeAndWait. Everything up to the pipeline answers the request directly and leaves no
 * completion.
 */
const laterOf = (a: bigint | undefined, b: bigint | undefined) =>
  a === undefined ? b : b === undefined || a >= b ? a : b;

@CommandHandler(SubmitCommandsCommand)
export class SubmitCommandsHandler implements ICommandHandler<SubmitCommandsCommand, Record<string, unknown>> {
  constructor(
    private readonly contracts: ContractsRepository,
    private readonly runtime: LedgerRuntime,
    private readonly identity: ParticipantIdentity,
    private readonly pipeline: TransactionSubmissionService,
    private readonly transactions: SubmittedTransactions,
    private readonly hostingOf: SubmitterHostingCache,
    private readonly templateDirectories: TemplateDirectories,
    private readonly interpreter: CommandInterpreter,
  ) {}

  async execute({ claims, request, mode, transactionFormat }: SubmitCommandsCommand): Promise<Record<string, unknown>> {
    // 1. The JSON layer, which resolves the templates (as prepare does: #name → the preferred vetted package).
    const templates = await this.templateDirectories.forCommands(
      request.commands,
      request.synchronizerId,
      request.packageIdSelectionPreference,
    );
    checkCommandsJsonLayer(request, templates);
    // 2. Authorization (the given format's read claims too; a default one is built after it).
    const userId = authorizeCommands(claims, request);
    if (transactionFormat) authorizeUpdateFormat(claims, { includeTransactions: transactionFormat });
    // 3. Validation: the format first (SubmitAndWaitRequestValidator), then the commands.
    const format =
      mode === 'transaction'
        ? (transactionFormat ?? defaultTransactionFormat([...new Set([...request.actAs, ...request.readAs])]))
        : null;
    if (format) validateUpdateFormat({ includeTransactions: format });
    const now = this.runtime.clock.nowMicros();
    const v = validateCommands(request, userId, request.submissionId || randomUUID(), {
      now,
      maxDeduplicationMicros: BigInt(this.runtime.config.maxDeduplicationSeconds) * 1_000_000n,
    });
    await this.templateDirectories.validatePreference(request.packageIdSelectionPreference);
    // 4. Interpretation: the transaction from the commands, on the parties and contracts the ledger has now.
    const db = this.runtime.db;
    const [hosting, contracts] = await Promise.all([
      this.hostingOf.get(partyCandidates({ commands: request.commands, actAs: v.actAs, readAs: v.readAs })),
      this.contracts.getMany(db, exercisedContractIds(request.commands)),
    ]);
    const connected = this.identity.synchronizers.map((s) => s.id);
    const built = await this.interpreter.interpret(
      {
        commands: request.commands,
        actAs: v.actAs,
        readAs: v.readAs,
        synchronizerId: connected.includes(v.synchronizerId) ? v.synchronizerId : '',
        disclosedContracts: v.disclosedContracts,
      },
      { knownParties: new Set(hosting.keys()), contracts },
      // The ledger effective time the commands run at: now, raised to minLedgerTimeAbs, or now + minLedgerTimeRel.
      {
        connectedSynchronizers: connected,
        templates,
        now,
        ledgerTime: v.minLedgerTime ?? now,
        submissionSeed: randomBytes(32),
      },
    );
    // 5. Routing.
    routeSubmission(v.actAs, hosting, v.synchronizerId, connected);
    // 6. The pipeline shared with executeAndWait.
    const r = await this.pipeline.submit({
      wf: checkWellFormed(built.transaction, { singleRoot: false }),
      synchronizerId: built.synchronizerId,
      commandId: v.commandId,
      workflowId: v.workflowId,
      submission: { userId, actAs: v.actAs, submissionId: v.submissionId },
      // The pipeline chooses the ledger effective time within the bounds the interpretation's time reads impose.
      times: {
        preparationTime: now,
        minLedgerEffectiveTime: built.ledgerTimeBounds?.min,
        maxLedgerEffectiveTime: built.ledgerTimeBounds?.max,
      },
      minLedgerTime: laterOf(v.minLedgerTime, built.minLedgerTime),
      externalTransactionHash: null,
      deduplicationPeriod: v.deduplicationPeriod,
      tracked: mode !== 'async',
      disclosedContractIds: new Set(v.disclosedContracts.map((d) => d.contractId)),
    });
    if (mode === 'async') return {};
    if (r.rejection) throw r.rejection;
    if (format) return this.transactions.transaction(r.updateId, format);
    if (mode === 'tree') return this.transactions.tree(r.updateId, v.actAs);
    return { updateId: r.updateId, completionOffset: r.completionOffset };
  }
}
