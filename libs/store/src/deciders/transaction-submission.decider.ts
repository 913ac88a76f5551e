import { sql, type Kysely } from 'kysely';
import {
  decideTransaction,
  isLedgerError,
  rejectionEvent,
  type LedgerError,
  type CompletedChange,
  type DecideTransactionInput,
  type DeduplicationPeriod,
  type StoredContractState,
  type WellFormedTransaction,
} from '@ledgerline/domain';
import type { DB } from '../schema';
import { prepared } from '../prepared-statements';
import { changes, type Decider, type Decision } from '../writer';
import { changesContracts, readsContracts } from './contract-conflicts';

/**
 * A transaction to commit, checked up to the writer: an externally signed one (executeAndWait) or one built from the
 * commands of local parties (submit-and-wait); both go through the same transaction submission (TransactionSubmissionService).
 */
export interface CheckedTransactionSubmission {
  /** The change it completes (deduplication). */
  changeId: string;
  /** What the decision needs besides the state the writer reads and its clock. */
  transaction: Omit<DecideTransactionInput, 'deduplication' | 'contracts' | 'now'>;
  deduplicationPeriod: DeduplicationPeriod;
  /** The decision's clock, µs since the epoch. */
  now: () => bigint;
  /** `consumedInputs(transaction.wf)`, when the caller has computed it already (else the key computes it). */
  consumedContractIds?: readonly string[];
}

/** What the writer decides an execution on. */
export interface TransactionSubmissionState {
  completed: CompletedChange | undefined;
  contracts: Map<string, StoredContractState>;
}

/** The change an execution completes and the contracts it reads, consumes and creates. */
export interface TransactionSubmissionKey {
  changeId: string;
  readContractIds: readonly string[];
  consumedContractIds: readonly string[];
  createdContractIds: readonly string[];
}

/**
 * Committed (the update and its completion offset), or rejected at commit: a rejected completion was appended at its own
 * offset, and `rejection` is the error the submitter gets.
 */
export type TransactionSubmissionResult =
  | { updateId: string; completionOffset: number; rejection?: undefined }
  | { rejection: LedgerError; completionOffset: number };

/** Input contracts the transaction consumes. */
export function consumedInputs(wf: WellFormedTransaction): string[] {
  const inputs = new Set(wf.inputContractIds);
  const out = new Set<string>();
  for (const n of wf.nodes)
    if (n.node.kind === 'exercise' && n.node.exercise.consuming && inputs.has(n.node.exercise.contractId))
      out.add(n.node.exercise.contractId);
  return [...out];
}

const contractState = (r: Record<string, unknown>): StoredContractState => ({
  contractId: r.id as string,
  templateId: r.tid as string,
  packageName: r.pkg as string,
  signatories: r.sig as string[],
  stakeholders: r.stk as string[],
  status: r.st as StoredContractState['status'],
  synchronizerId: (r.sync as string | null) ?? null,
});

const completedChange = (r: Record<string, unknown>): CompletedChange => ({
  completionOffset: Number(r.o),
  recordTimeMicros: BigInt(r.t as string),
  submissionId: String(r.s),
});

/**
 * Deduplication against the change's last completion (`command_deduplication`), then the ledger model against the
 * stored state of the contracts it touches (`decideTransaction`); commits one Transaction update, or, when the decision
 * rejects it, one CommandRejected event (its rejected completion).
 */
export const transactionSubmissionDecider: Decider<
  CheckedTransactionSubmission,
  TransactionSubmissionKey,
  TransactionSubmissionState,
  TransactionSubmissionResult
> = {
  name: 'transaction-submission',
  key({ changeId, transaction: { wf }, consumedContractIds }) {
    const consumed = consumedContractIds ?? consumedInputs(wf);
    const consumedSet = new Set(consumed);
    return {
      changeId,
      readContractIds: wf.inputContractIds.filter((c) => !consumedSet.has(c)),
      consumedContractIds: consumed,
      createdContractIds: wf.createdContractIds,
    };
  },
  conflicts: {
    changeId: changes('change'),
    readContractIds: readsContracts,
    consumedContractIds: changesContracts,
    createdContractIds: changesContracts,
  },
  /**
   * One statement for many executions. `= ANY (ARRAY(…))` keeps the contracts lookup an index scan whatever the plan (the
   * statement is prepared, and a generic plan made while the table was small must not seq-scan it later).
   */
  async load(db: Kysely<DB>, keys: readonly TransactionSubmissionKey[]): Promise<TransactionSubmissionState[]> {
    const contractIds = keys.map((k) =>
      JSON.stringify([...k.readContractIds, ...k.consumedContractIds, ...k.createdContractIds]),
    );
    const { rows } = await prepared(sql<{
      d: Record<string, unknown> | null;
      c: Array<Record<string, unknown>> | null;
    }>`
      SELECT
        (SELECT jsonb_build_object('o', completion_offset, 't', record_time_micros::text, 's', submission_id)
          FROM command_deduplication d WHERE d.change_id = k.change_id ORDER BY completion_offset DESC LIMIT 1) AS d,
        (SELECT jsonb_agg(jsonb_build_object('id', contract_id, 'tid', template_id, 'pkg', package_name, 'sig', signatories,
                                             'stk', stakeholders, 'st', status, 'sync', synchronizer_id))
          FROM contracts c WHERE c.contract_id = ANY (ARRAY(SELECT jsonb_array_elements_text(k.ids)))) AS c
      FROM unnest(${keys.map((k) => k.changeId)}::text[], ${contractIds}::jsonb[])
        WITH ORDINALITY AS k(change_id, ids, n)
      ORDER BY k.n`).execute(db);
    return rows.map((r) => ({
      completed: r.d ? completedChange(r.d) : undefined,
      contracts: new Map((r.c ?? []).map((c) => [c.id as string, contractState(c)])),
    }));
  },
  decide(state, command): Decision<TransactionSubmissionResult> {
    let decided;
    try {
      decided = decideTransaction({
        ...command.transaction,
        deduplication: { period: command.deduplicationPeriod, completed: state.completed },
        contracts: state.contracts,
        now: command.now(),
      });
    } catch (e) {
      if (!isLedgerError(e)) throw e;
      const t = command.transaction;
      return {
        events: [
          rejectionEvent(
            {
              ...t.submission,
              commandId: t.commandId,
              synchronizerId: t.synchronizerId,
              deduplicationPeriod: command.deduplicationPeriod,
              externalTransactionHash: t.externalTransactionHash,
            },
            e,
          ),
        ],
        answer: ([rejected]) => ({ rejection: e, completionOffset: rejected.offset! }),
      };
    }
    return {
      events: [decided.event],
      answer: ([committed]) => ({ updateId: committed.update!.updateId, completionOffset: committed.update!.offset }),
    };
  },
};
