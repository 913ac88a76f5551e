import { randomUUID } from 'node:crypto';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { PreparedTransaction } from '@canton-network/core-ledger-proto';
import { CantonError, hashPreparedTransaction, SignatureVerifier } from '@ledgerline/canton';
import {
  canExecuteAs,
  changeIdOf,
  checkAuthorization,
  checkWellFormed,
  ErrorCategories,
  failedToExecute,
  jsonInvalidArgument,
  LedgerError,
  logicalSynchronizerId,
  matchUserId,
  nowMicros,
  permissionDenied,
  prerenderTransaction,
  submitterViewOf,
  validateExecuteRequest,
  verifyExternalSignatures,
} from '@ledgerline/domain';
import { consumedInputs, EventStore, executeSubmissionDecider } from '@ledgerline/store';
import { LedgerRuntime } from '../../../infrastructure/runtime';
import { ParticipantIdentity } from '../../../infrastructure/participant-identity';
import { InFlightSubmissions } from '../in-flight-submissions';
import { SigningKeysCache } from '../signing-keys.cache';
import { ExecuteSubmissionCommand, type ExecuteSubmissionResult } from './execute-submission.command';

const notConnected = (id: string) =>
  new LedgerError('NOT_CONNECTED_TO_SYNCHRONIZER', ErrorCategories.InvalidGivenCurrentSystemStateOther, `This participant is not connected to synchronizer ${id}`, {
    context: { synchronizer_id: id },
  });

/**
 * POST /v2/interactive-submission/executeAndWait, in the reference's order (Canton's InteractiveSubmissionServiceImpl
 * and ExternalTransactionProcessor, ledger-api-core: platform/apiserver/services/command/interactive/; see
 * docs/architecture.md, Submission pipeline): decode → authorize → validate the fields → well-formedness → recompute the
 * hash → verify the signatures → authorization (ledger model) → in-flight checks → in the writer: deduplication,
 * consistency, time → commit one Transaction update.
 */
@CommandHandler(ExecuteSubmissionCommand)
export class ExecuteSubmissionHandler implements ICommandHandler<ExecuteSubmissionCommand, ExecuteSubmissionResult> {
  constructor(
    private readonly store: EventStore,
    private readonly runtime: LedgerRuntime,
    private readonly identity: ParticipantIdentity,
    private readonly keys: SigningKeysCache,
    private readonly inFlight: InFlightSubmissions,
    private readonly signatures: SignatureVerifier,
  ) {}

  async execute({ claims, request, mode }: ExecuteSubmissionCommand): Promise<ExecuteSubmissionResult> {
    const cfg = this.runtime.config;
    // 1. Decode the protobuf (JSON layer).
    let pt: PreparedTransaction;
    try {
      pt = PreparedTransaction.fromBinary(request.preparedTransaction);
    } catch (e) {
      throw jsonInvalidArgument(`Cannot parse prepared_transaction: ${(e as Error).message}`);
    }
    // 2. Authorization: MatchUserId + ExecuteAs for every actAs party of the prepared transaction.
    const userId = matchUserId(claims, request.userId);
    for (const p of pt.metadata?.submitterInfo?.actAs ?? []) {
      if (!canExecuteAs(claims, p)) throw permissionDenied(`Claims do not authorize to execute as party '${p}'`);
    }
    // 3. Field validation.
    const submissionId = request.submissionId || randomUUID();
    const validated = validateExecuteRequest(
      {
        preparedTransaction: pt,
        partySignatures: request.partySignatures,
        deduplicationPeriod: request.deduplicationPeriod,
        submissionId,
        userId,
        hashingSchemeVersion: request.hashingSchemeVersion,
        minLedgerTime: request.minLedgerTime,
      },
      {
        maxDeduplicationMicros: BigInt(cfg.maxDeduplicationSeconds) * 1_000_000n,
        now: nowMicros(),
        maxSignaturesPerParty: mode === 'async' ? 50 : undefined,
      },
    );
    // 4. Execution: decode, well-formedness, hash, signatures, authorization.
    const view = submitterViewOf(pt);
    const wf = checkWellFormed(pt.transaction);
    if (validated.hashingSchemeVersion === 4) throw failedToExecute('Hashing scheme version V4 is not supported on protocol version 35');
    const synchronizerId = logicalSynchronizerId(view.synchronizerId);
    if (!this.identity.synchronizer(synchronizerId)) throw notConnected(synchronizerId);
    let hash: Buffer;
    try {
      hash = hashPreparedTransaction(pt, validated.hashingSchemeVersion);
    } catch (e) {
      if (e instanceof CantonError) throw failedToExecute(e.message);
      throw e;
    }
    const keys = await this.keys.get(view.actAs);
    await verifyExternalSignatures({ actAs: view.actAs, signatures: validated.signatures, keysOf: (p) => keys.get(p), hash, verifier: this.signatures });
    checkAuthorization(wf, view.actAs);

    // 5. Deduplication and the ledger model against the ledger state, serialized by the writer.
    const changeId = changeIdOf(userId, view.actAs, view.commandId);
    const consumed = consumedInputs(wf);
    const release = this.inFlight.acquire(changeId, submissionId, wf.inputContractIds, consumed);
    const externalTransactionHash = '1220' + hash.toString('hex');
    const submission = { userId, actAs: view.actAs, submissionId };
    try {
      // The committed form is rendered now, outside the writer's batch (which holds the ledger lock); the writer only
      // decides on the state it reads.
      const rendered = prerenderTransaction(
        { wf, commandId: view.commandId, submission, times: view, minLedgerTime: validated.minLedgerTime, externalTransactionHash },
        nowMicros(),
      );
      // The writer loads the change's last completion and the contracts for many executions at once (executeSubmissionDecider).
      return await this.store.decide(executeSubmissionDecider, {
        changeId,
        transaction: {
          wf,
          synchronizerId,
          commandId: view.commandId,
          submission,
          times: view,
          minLedgerTime: validated.minLedgerTime,
          externalTransactionHash,
          timeConfig: {
            preparationTimeToleranceMicros: BigInt(cfg.preparationTimeToleranceSeconds) * 1_000_000n,
            ledgerTimeToleranceMicros: BigInt(cfg.ledgerTimeToleranceSeconds) * 1_000_000n,
          },
          rendered,
        },
        deduplicationPeriod: validated.deduplicationPeriod,
        now: nowMicros,
        consumedContractIds: consumed,
      });
    } finally {
      release();
    }
  }
}
