import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  changeIdOf,
  checkAuthorization,
  checkInputContractRouting,
  chooseLedgerTime,
  isLedgerError,
  prerenderTransaction,
  routedInputs,
  storedDeduplicationPeriod,
  suffixContractIds,
  type CommittedEvent,
  type ContractLocation,
  type DeduplicationPeriod,
  type LedgerError,
  type PreparedTimes,
  type WellFormedTransaction,
} from '@ledgerline/domain';
import {
  consumedInputs,
  ContractsRepository,
  dryRunDecision,
  EventStore,
  transactionSubmissionDecider,
  transactionSubmissionRejectionDecider,
  type CheckedTransactionSubmission,
  type TransactionSubmissionKey,
  type TransactionSubmissionResult,
  type TransactionSubmissionState,
} from '@ledgerline/store';
import { LedgerRuntime } from '../../infrastructure/runtime';
import { InFlightSubmissions } from './in-flight-submissions';

/** A well-formed transaction whose `actAs` parties have consented (by signatures, or by the caller's claims). */
export interface TransactionSubmission {
  wf: WellFormedTransaction;
  synchronizerId: string;
  commandId: string;
  /** '' for none. */
  workflowId: string;
  submission: { userId: string; actAs: string[]; submissionId: string };
  times: PreparedTimes;
  minLedgerTime?: bigint;
  /** Hex multihash of the signed hash (interactive submissions); null for commands of local parties. */
  externalTransactionHash: string | null;
  deduplicationPeriod: DeduplicationPeriod;
  /** The caller waits for the outcome (Canton's command tracker): submit-and-wait and its variants, executeAndWait. */
  tracked: boolean;
  /** Input contracts the submission discloses, which routing does not look up (an interactive submission: all of them). */
  disclosedContractIds: ReadonlySet<string>;
}

/** The ledger a dry run reads: as of `offset`, read-only. */
export interface SimulationView {
  readonly offset: number;
  locations(contractIds: readonly string[]): Promise<Map<string, ContractLocation>>;
  submissionState(key: TransactionSubmissionKey): Promise<TransactionSubmissionState>;
}

/** A dry run's outcome: the transaction event the writer would commit (and its suffixed transaction), or the rejection. */
export type SimulatedSubmission =
  | { committed: CommittedEvent; wf: WellFormedTransaction; rejection?: undefined }
  | { rejection: LedgerError; committed?: undefined };

/**
 * Everything after consent, for every way a transaction is submitted (executeAndWait and execute with external
 * signatures; submit-and-wait and async submit with the caller's claims): the ledger model's authorization rules, the
 * in-flight checks of this instance, the prerendering of the committed form, and the writer's decision (deduplication,
 * consistency, time bounds), which commits the transaction or a rejected completion.
 *
 * Synchronous rejections (no completion, the ledger end unchanged): authorization failures, input contracts routing finds
 * archived, unknown or in flight (UNKNOWN_CONTRACT_SYNCHRONIZERS), the same change in flight (SUBMISSION_ALREADY_IN_FLIGHT,
 * from every endpoint). Rejections after hand-over (a contract locked by a submission in
 * flight; at commit a duplicate, a lost race, a time bound) are rejected completions with an offset of their own: the
 * result carries the error and that offset.
 */
@Injectable()
export class TransactionSubmissionService {
  constructor(
    private readonly contracts: ContractsRepository,
    private readonly store: EventStore,
    private readonly runtime: LedgerRuntime,
    private readonly inFlight: InFlightSubmissions,
  ) {}

  async submit(s: TransactionSubmission): Promise<TransactionSubmissionResult> {
    const { wf, submission: sub } = s;
    checkAuthorization(wf, sub.actAs);
    const changeId = changeIdOf(sub.userId, sub.actAs, s.commandId);
    const untrack = s.tracked ? this.inFlight.track(changeId, sub.submissionId) : undefined;
    try {
      // Routing: input contracts already known inactive are refused before hand-over (a read; the writer decides at commit).
      const routed = routedInputs(wf.inputContractIds, s.disclosedContractIds);
      if (routed.length)
        checkInputContractRouting(
          routed,
          s.disclosedContractIds,
          await this.contracts.locations(this.runtime.db, routed),
        );
      return await this.handOver(s, changeId);
    } finally {
      untrack?.();
    }
  }

  /**
   * A dry run of `submit` (POST /v2/commands/simulate): the same ledger-model authorization, routing of the input
   * contracts and writer decision, on the ledger as `view` reads it at `view.offset`, with nothing registered, locked or
   * written. The answer is the decision's: the transaction as it would be committed (with its events' places after
   * `view.offset`), or the rejection a submission would get.
   */
  async simulate(s: TransactionSubmission, view: SimulationView): Promise<SimulatedSubmission> {
    const { wf, submission: sub } = s;
    checkAuthorization(wf, sub.actAs);
    const routed = routedInputs(wf.inputContractIds, s.disclosedContractIds);
    if (routed.length) checkInputContractRouting(routed, s.disclosedContractIds, await view.locations(routed));
    const changeId = changeIdOf(sub.userId, sub.actAs, s.commandId);
    const command = this.checked(s, changeId, consumedInputs(wf));
    const state = await view.submissionState(transactionSubmissionDecider.key(command));
    const { committed, answer } = dryRunDecision(transactionSubmissionDecider, state, command, {
      offset: view.offset,
      now: this.runtime.clock.nowMicros(),
      participantId: this.runtime.identity.participantId,
    });
    if (answer.rejection) return { rejection: answer.rejection };
    return { committed: committed[0], wf: command.transaction.wf };
  }

  /**
   * What the writer decides: the committed form rendered now, outside the writer's batch (which holds the ledger lock);
   * created contracts get their committed ids (Canton's suffix) at the ledger effective time chosen now, which the writer
   * keeps.
   */
  private checked(s: TransactionSubmission, changeId: string, consumed: string[]): CheckedTransactionSubmission {
    const cfg = this.runtime.config;
    const submission = { ...s.submission, deduplicationPeriod: storedDeduplicationPeriod(s.deduplicationPeriod) };
    const submittedAt = this.runtime.clock.nowMicros();
    const { wf } = suffixContractIds({
      wf: s.wf,
      ledgerEffectiveTime: chooseLedgerTime(s.times, submittedAt, s.minLedgerTime),
      synchronizerId: s.synchronizerId,
      saltSeed: randomBytes(32),
    });
    const rendered = prerenderTransaction(
      {
        wf,
        commandId: s.commandId,
        workflowId: s.workflowId,
        submission,
        times: s.times,
        minLedgerTime: s.minLedgerTime,
        externalTransactionHash: s.externalTransactionHash,
      },
      submittedAt,
    );
    return {
      changeId,
      transaction: {
        wf,
        synchronizerId: s.synchronizerId,
        commandId: s.commandId,
        workflowId: s.workflowId,
        submission,
        times: s.times,
        minLedgerTime: s.minLedgerTime,
        externalTransactionHash: s.externalTransactionHash,
        timeConfig: {
          preparationTimeToleranceMicros: BigInt(cfg.preparationTimeToleranceSeconds) * 1_000_000n,
          ledgerTimeToleranceMicros: BigInt(cfg.ledgerTimeToleranceSeconds) * 1_000_000n,
        },
        rendered,
      },
      deduplicationPeriod: s.deduplicationPeriod,
      now: () => this.runtime.clock.nowMicros(),
      consumedContractIds: consumed,
    };
  }

  private async handOver(s: TransactionSubmission, changeId: string): Promise<TransactionSubmissionResult> {
    const { submission: sub } = s;
    const consumed = consumedInputs(s.wf);
    // Another submission of the change in flight: a synchronous refusal, before anything is registered.
    const unregister = this.inFlight.register(changeId, sub.submissionId);
    let release: () => void;
    try {
      const unlock = this.inFlight.lock(changeId, s.wf.inputContractIds, consumed);
      release = () => {
        unlock();
        unregister();
      };
    } catch (e) {
      unregister();
      if (!isLedgerError(e)) throw e;
      // The submission was accepted: the locked contracts are its rejected completion.
      return await this.store.decide(transactionSubmissionRejectionDecider, {
        changeId,
        submission: {
          ...sub,
          commandId: s.commandId,
          synchronizerId: s.synchronizerId,
          deduplicationPeriod: s.deduplicationPeriod,
          externalTransactionHash: s.externalTransactionHash,
        },
        error: e,
      });
    }
    try {
      // The writer loads the change's last completion and the contracts for many submissions at once (transactionSubmissionDecider).
      return await this.store.decide(transactionSubmissionDecider, this.checked(s, changeId, consumed));
    } finally {
      release();
    }
  }
}
