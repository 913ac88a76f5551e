import { randomUUID } from 'node:crypto';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { PreparedTransaction } from '@canton-network/core-ledger-proto';
import { CantonError, hashPreparedTransaction, SignatureVerifier } from '@ledgerline/canton';
import { assertStorableMessage } from '@ledgerline/wire';
import {
  authorizeUpdateFormat,
  canExecuteAs,
  checkWellFormed,
  defaultTransactionFormat,
  ErrorCategories,
  failedToExecute,
  jsonInvalidArgument,
  LedgerError,
  logicalSynchronizerId,
  matchUserId,
  permissionDenied,
  submitterViewOf,
  validateExecuteRequest,
  validateUpdateFormat,
  verifyExternalSignatures,
} from '@ledgerline/domain';
import { LedgerRuntime } from '../../../infrastructure/runtime';
import { ParticipantIdentity } from '../../../infrastructure/participant-identity';
import { TransactionSubmissionService } from '../../transaction-submission/transaction-submission.service';
import { SubmittedTransactions } from '../../transaction-submission/submitted-transactions';
import { SigningKeysCache } from '../signing-keys.cache';
import { ExecuteSubmissionCommand, type ExecuteSubmissionAnswer } from './execute-submission.command';

const notConnected = (id: string) =>
  new LedgerError(
    'NOT_CONNECTED_TO_SYNCHRONIZER',
    ErrorCategories.InvalidGivenCurrentSystemStateOther,
    `This participant is not connected to synchronizer ${id}`,
    {
      context: { synchronizer_id: id },
    },
  );

/**
 * POST /v2/interactive-submission/executeAndWait (and executeAndWaitForTransaction, execute), in the reference's order
 * (Canton's InteractiveSubmissionServiceImpl and ExternalTransactionProcessor, ledger-api-core:
 * platform/apiserver/services/command/interactive/; see docs/architecture.md, Submission pipeline): decode → authorize →
 * validate the fields → well-formedness → recompute the hash → verify the signatures (the actAs parties' consent) → the
 * submission pipeline shared with command submission (authorization, in-flight checks, in the writer: deduplication,
 * consistency, time → commit one Transaction update, or a rejected completion).
 */
@CommandHandler(ExecuteSubmissionCommand)
export class ExecuteSubmissionHandler implements ICommandHandler<ExecuteSubmissionCommand, ExecuteSubmissionAnswer> {
  constructor(
    private readonly runtime: LedgerRuntime,
    private readonly identity: ParticipantIdentity,
    private readonly keys: SigningKeysCache,
    private readonly pipeline: TransactionSubmissionService,
    private readonly transactions: SubmittedTransactions,
    private readonly signatures: SignatureVerifier,
  ) {}

  async execute({
    claims,
    request,
    mode,
    transactionFormat,
  }: ExecuteSubmissionCommand): Promise<ExecuteSubmissionAnswer> {
    const cfg = this.runtime.config;
    // 1. Decode the protobuf (JSON layer).
    let pt: PreparedTransaction;
    try {
      pt = PreparedTransaction.fromBinary(request.preparedTransaction);
    } catch (e) {
      throw jsonInvalidArgument(`Cannot parse prepared_transaction: ${(e as Error).message}`);
    }
    // 2. Authorization: MatchUserId + ExecuteAs for every actAs party of the prepared transaction (+ the read claims of a
    // given transaction format).
    const userId = matchUserId(claims, request.userId);
    for (const p of pt.metadata?.submitterInfo?.actAs ?? []) {
      if (!canExecuteAs(claims, p)) throw permissionDenied(`Claims do not authorize to execute as party '${p}'`);
    }
    if (transactionFormat) authorizeUpdateFormat(claims, { includeTransactions: transactionFormat });
    // Text the ledger could not store would fail the writer's batch: refused here, before it reaches one.
    assertStorableMessage('prepared_transaction', pt);
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
        now: this.runtime.clock.nowMicros(),
        maxSignaturesPerParty: mode === 'async' ? 50 : undefined,
      },
    );
    const view = submitterViewOf(pt);
    // The default format: ACS_DELTA, wildcard, verbose, for the prepared transaction's actAs parties.
    const format = mode === 'transaction' ? (transactionFormat ?? defaultTransactionFormat(view.actAs)) : null;
    if (format) validateUpdateFormat({ includeTransactions: format });
    // 4. Execution: decode, well-formedness, hash, signatures.
    const wf = checkWellFormed(pt.transaction);
    if (validated.hashingSchemeVersion === 4)
      throw failedToExecute('Hashing scheme version V4 is not supported on protocol version 35');
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
    await verifyExternalSignatures({
      actAs: view.actAs,
      signatures: validated.signatures,
      keysOf: (p) => keys.get(p),
      hash,
      verifier: this.signatures,
    });

    // 5. The shared pipeline: the ledger model, deduplication, commit.
    const r = await this.pipeline.submit({
      wf,
      synchronizerId,
      commandId: view.commandId,
      workflowId: '',
      submission: { userId, actAs: view.actAs, submissionId },
      times: view,
      minLedgerTime: validated.minLedgerTime,
      externalTransactionHash: '1220' + hash.toString('hex'),
      deduplicationPeriod: validated.deduplicationPeriod,
      tracked: mode !== 'async',
      // Every input contract of a prepared transaction is disclosed (Canton's ExternalTransactionProcessor).
      disclosedContractIds: new Set(wf.inputContractIds),
    });
    if (mode === 'async') return {};
    if (r.rejection) throw r.rejection;
    if (format) return this.transactions.transaction(r.updateId, format);
    return { updateId: r.updateId, completionOffset: r.completionOffset };
  }
}
