import { randomBytes, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
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
  type Claims,
  type CommandsRequest,
  type StoredContract,
  type TransactionFormat,
} from '@ledgerline/domain';
import { ContractsRepository } from '@ledgerline/store';
import { LedgerRuntime } from '../../infrastructure/runtime';
import { ParticipantIdentity } from '../../infrastructure/participant-identity';
import { TemplateDirectories } from '../../infrastructure/template-directories';
import { CommandInterpreter } from '../../infrastructure/command-interpreter';
import type { TransactionSubmission } from '../transaction-submission/transaction-submission.service';
import { SubmitterHostingCache } from './submitter-hosting.cache';

/** The contracts an interpretation reads: the ledger now (a submission), or as of an offset (a dry run). */
export interface InterpretationLedger {
  contracts(ids: readonly string[]): Promise<Map<string, StoredContract>>;
  contract(id: string): Promise<StoredContract | null>;
}

/** What the interpretation of a command submission gives: the submission the pipeline takes, and how to answer it. */
export interface InterpretedCommands {
  submission: TransactionSubmission;
  /** The answer's transaction format (…-for-transaction, and dry runs); null for the others. */
  format: TransactionFormat | null;
  actAs: string[];
  /** The engine's steps (0 on the generic template model). */
  engineSteps: number;
}

/** Before interpretation: the request was decoded, authorized and validated. After it: the engine had its say. */
export type InterpretationFailure = { stage: 'interpretation'; error: unknown; engineSteps: number };

const laterOf = (a: bigint | undefined, b: bigint | undefined) =>
  a === undefined ? b : b === undefined || a >= b ? a : b;

/**
 * The commands of local parties up to the submission pipeline, in the reference's order (Canton's JsCommandService,
 * CommandServiceAuthorization, CommandsValidator, then interpretation and routing): the JSON layer → authorization (the
 * caller's claims are the actAs parties' consent) → validation → interpretation (the Daml engine for templates of stored
 * packages, else the generic template model; as prepare does) → routing (local submitters, the prescribed
 * synchronizer). Shared by submission (SubmitCommandsHandler) and dry runs (SimulateCommandsHandler), which differ only in
 * the ledger the interpretation reads. A failure of interpretation or routing is thrown as an `InterpretationFailure`
 * carrying the engine's steps when `tagFailures` is set.
 */
@Injectable()
export class CommandsInterpretation {
  constructor(
    private readonly contracts: ContractsRepository,
    private readonly runtime: LedgerRuntime,
    private readonly identity: ParticipantIdentity,
    private readonly hostingOf: SubmitterHostingCache,
    private readonly templateDirectories: TemplateDirectories,
    private readonly interpreter: CommandInterpreter,
  ) {}

  /** The ledger now. */
  readonly current: InterpretationLedger = {
    contracts: (ids) => this.contracts.getMany(this.runtime.db, ids),
    contract: (id) => this.contracts.get(this.runtime.db, id),
  };

  /**
   * `ledger` is opened after validation (a dry run checks its offset there). `mode` 'transaction' answers with a
   * transaction (the given format or the default one); `tracked`: the caller waits for the outcome.
   */
  async interpret(
    claims: Claims,
    request: CommandsRequest,
    opts: {
      transactionFormat: TransactionFormat | null;
      answersTransaction: boolean;
      defaultShape?: TransactionFormat['transactionShape'];
      tracked: boolean;
      ledger: () => Promise<InterpretationLedger>;
      tagFailures?: boolean;
    },
  ): Promise<InterpretedCommands> {
    // 1. The JSON layer, which resolves the templates (as prepare does: #name → the preferred vetted package).
    const templates = await this.templateDirectories.forCommands(
      request.commands,
      request.synchronizerId,
      request.packageIdSelectionPreference,
    );
    checkCommandsJsonLayer(request, templates);
    // 2. Authorization (the given format's read claims too; a default one is built after it).
    const userId = authorizeCommands(claims, request);
    if (opts.transactionFormat) authorizeUpdateFormat(claims, { includeTransactions: opts.transactionFormat });
    // 3. Validation: the format first (SubmitAndWaitRequestValidator), then the commands.
    const fallback = () => {
      const f = defaultTransactionFormat([...new Set([...request.actAs, ...request.readAs])]);
      return opts.defaultShape ? { ...f, transactionShape: opts.defaultShape } : f;
    };
    const format = opts.answersTransaction ? (opts.transactionFormat ?? fallback()) : null;
    if (format) validateUpdateFormat({ includeTransactions: format });
    const now = this.runtime.clock.nowMicros();
    const v = validateCommands(request, userId, request.submissionId || randomUUID(), {
      now,
      maxDeduplicationMicros: BigInt(this.runtime.config.maxDeduplicationSeconds) * 1_000_000n,
    });
    await this.templateDirectories.validatePreference(request.packageIdSelectionPreference);
    const ledger = await opts.ledger();
    // 4. Interpretation: the transaction from the commands, on the parties and contracts the ledger has.
    const meter = { steps: 0 };
    try {
      const [hosting, contracts] = await Promise.all([
        this.hostingOf.get(partyCandidates({ commands: request.commands, actAs: v.actAs, readAs: v.readAs })),
        ledger.contracts(exercisedContractIds(request.commands)),
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
          stepMeter: meter,
        },
        (id) => ledger.contract(id),
      );
      // 5. Routing.
      routeSubmission(v.actAs, hosting, v.synchronizerId, connected);
      return {
        submission: {
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
          tracked: opts.tracked,
          disclosedContractIds: new Set(v.disclosedContracts.map((d) => d.contractId)),
        },
        format,
        actAs: v.actAs,
        engineSteps: meter.steps,
      };
    } catch (error) {
      if (!opts.tagFailures) throw error;
      const failure: InterpretationFailure = { stage: 'interpretation', error, engineSteps: meter.steps };
      throw failure;
    }
  }
}

export const isInterpretationFailure = (e: unknown): e is InterpretationFailure =>
  typeof e === 'object' && e !== null && (e as { stage?: unknown }).stage === 'interpretation';
