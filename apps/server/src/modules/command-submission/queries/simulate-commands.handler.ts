import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { isLedgerError, simulatedContracts, simulationOffset, type StoredTransaction } from '@ledgerline/domain';
import { LedgerUpdatesRepository, SimulationRepository } from '@ledgerline/store';
import { renderError } from '@ledgerline/wire';
import { LedgerRuntime } from '../../../infrastructure/runtime';
import { TransactionSubmissionService } from '../../transaction-submission/transaction-submission.service';
import { SubmittedTransactions } from '../../transaction-submission/submitted-transactions';
import { CommandsInterpretation, isInterpretationFailure, type InterpretationLedger } from '../commands-interpretation';
import { SimulateCommandsQuery } from './simulate-commands.query';

/**
 * A dry run: the submission's own path (CommandsInterpretation, then the pipeline's authorization, routing and the
 * writer's decision: TransactionSubmissionService.simulate) on the ledger as it is at the offset (SimulationRepository),
 * with nothing committed, no command id consumed and nothing any stream could see.
 *
 * What fails before interpretation (decoding, rights, validation, the offset) is the request's error, as for a
 * submission. From interpretation on, the answer is 200: `{offset, engineSteps, transaction, contracts}` — the
 * transaction as submit-and-wait-for-transaction would answer it (default format: LEDGER_EFFECTS for actAs and readAs),
 * its events at the offset after `offset` — or `{offset, engineSteps, status, error, exerciseTrace}`: the HTTP status and
 * JsCantonError the submission would get, and a failed Daml exercise's trace.
 */
@QueryHandler(SimulateCommandsQuery)
export class SimulateCommandsHandler implements IQueryHandler<SimulateCommandsQuery, Record<string, unknown>> {
  constructor(
    private readonly interpretation: CommandsInterpretation,
    private readonly pipeline: TransactionSubmissionService,
    private readonly transactions: SubmittedTransactions,
    private readonly simulation: SimulationRepository,
    private readonly updates: LedgerUpdatesRepository,
    private readonly runtime: LedgerRuntime,
  ) {}

  async execute(q: SimulateCommandsQuery): Promise<Record<string, unknown>> {
    const db = this.runtime.db;
    let offset = 0;
    const ledgerAt = (at: number): InterpretationLedger => ({
      contracts: (ids) => this.simulation.contractsAt(db, ids, at),
      contract: async (id) => (await this.simulation.contractsAt(db, [id], at)).get(id) ?? null,
    });
    let interpreted;
    try {
      interpreted = await this.interpretation.interpret(q.claims, q.request, {
        transactionFormat: q.transactionFormat,
        answersTransaction: true,
        defaultShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
        tracked: false,
        tagFailures: true,
        ledger: async () => {
          offset = simulationOffset(q.atOffset, await this.updates.position(db));
          return ledgerAt(offset);
        },
      });
    } catch (e) {
      if (isInterpretationFailure(e)) return this.failure(q, offset, e.engineSteps, e.error);
      throw e;
    }
    const { engineSteps } = interpreted;
    let r;
    try {
      r = await this.pipeline.simulate(interpreted.submission, {
        offset,
        locations: (ids) => this.simulation.locationsAt(db, ids, offset),
        submissionState: (key) => this.simulation.submissionStateAt(db, key, offset),
      });
    } catch (e) {
      return this.failure(q, offset, engineSteps, e);
    }
    if (r.rejection) return this.failure(q, offset, engineSteps, r.rejection);
    const { transaction } = await this.transactions.simulated(r.committed, interpreted.format!);
    return {
      offset,
      engineSteps,
      transaction,
      contracts: simulatedContracts(r.committed.data as StoredTransaction, r.wf.inputContractIds),
    };
  }

  private failure(q: SimulateCommandsQuery, offset: number, engineSteps: number, e: unknown): Record<string, unknown> {
    if (!isLedgerError(e)) throw e;
    const { status, body } = renderError(e, { traceId: q.traceId, participant: this.runtime.config.participantName });
    return { offset, engineSteps, status, error: body, exerciseTrace: e.context.exercise_trace ?? null };
  }
}
