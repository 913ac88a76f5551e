import { sql, type Kysely } from 'kysely';
import type { ContractLocation, StoredContract, StoredCreatedEvent } from '@ledgerline/domain';
import type { DB } from '../schema';
import type { TransactionSubmissionKey, TransactionSubmissionState } from '../deciders/transaction-submission.decider';

interface ContractAtRow {
  contract_id: string;
  template_id: string;
  package_name: string;
  signatories: string[];
  stakeholders: string[];
  archived_offset: string | null;
  created_event: StoredCreatedEvent;
  /** The activation open now, when it started at or before the offset: its synchronizer. */
  open_sync: string | null;
  /** Otherwise the latest activation at or before the offset: its synchronizer and when it closed. */
  last_sync: string | null;
  last_closed: string | null;
}

/**
 * Reads of a dry run (POST /v2/commands/simulate): the ledger as it was at an offset, read-only. A contract created after
 * the offset is unknown; one archived at or before it is archived; one with an activation open at the offset is active
 * on that activation's synchronizer; otherwise it was unassigned then (in flight). A change's completions after the offset
 * are not seen. What the writer's decision reads (`TransactionSubmissionState`) is read the same way, so a dry run decides
 * on the state a submission at that offset would have met.
 */
export class SimulationRepository {
  /** The contracts with these ids as they were at offset `at` (any status); unknown ones are absent. */
  async contractsAt(db: Kysely<DB>, ids: readonly string[], at: number): Promise<Map<string, StoredContract>> {
    if (ids.length === 0) return new Map();
    // The open activation row (indexed by `open_contract`) answers for contracts active since the offset; only a contract
    // whose state changed after it scans its activations from its creation on.
    const { rows } = await sql<ContractAtRow>`
      SELECT c.contract_id, c.template_id, c.package_name, c.signatories, c.stakeholders, c.archived_offset, c.created_event,
             CASE WHEN o.activated_offset <= ${at}::bigint THEN o.synchronizer_id END AS open_sync,
             l.synchronizer_id AS last_sync, l.deactivated_offset AS last_closed
      FROM contracts c
      LEFT JOIN LATERAL (
        SELECT x.activated_offset, x.synchronizer_id FROM contract_activations x WHERE x.open_contract = c.contract_id
      ) o ON true
      LEFT JOIN LATERAL (
        SELECT a.synchronizer_id, a.deactivated_offset FROM contract_activations a
        WHERE (o.activated_offset IS NULL OR o.activated_offset > ${at}::bigint)
          AND a.contract_id = c.contract_id AND a.activated_offset >= c.created_offset AND a.activated_offset <= ${at}::bigint
        ORDER BY a.activated_offset DESC LIMIT 1
      ) l ON true
      WHERE c.contract_id = ANY (${[...ids]}::text[]) AND c.created_offset <= ${at}::bigint`.execute(db);
    const out = new Map<string, StoredContract>();
    for (const r of rows) {
      const archived = r.archived_offset !== null && Number(r.archived_offset) <= at;
      const openAt = r.last_sync !== null && (r.last_closed === null || Number(r.last_closed) > at);
      const activeOn = archived ? null : (r.open_sync ?? (openAt ? r.last_sync : null));
      out.set(r.contract_id, {
        contractId: r.contract_id,
        templateId: r.template_id,
        packageName: r.package_name,
        signatories: r.signatories,
        stakeholders: r.stakeholders,
        status: archived ? 'archived' : activeOn !== null ? 'active' : 'in_flight',
        synchronizerId: archived ? r.last_sync : activeOn,
        createdEvent: r.created_event,
      });
    }
    return out;
  }

  /** Where routing finds these contracts at offset `at` (see ContractsRepository.locations). */
  async locationsAt(db: Kysely<DB>, ids: readonly string[], at: number): Promise<Map<string, ContractLocation>> {
    const contracts = await this.contractsAt(db, ids, at);
    return new Map([...contracts].map(([id, c]) => [id, { status: c.status, synchronizerId: c.synchronizerId }]));
  }

  /** What the transaction submission decider would load for `key`, at offset `at`. */
  async submissionStateAt(
    db: Kysely<DB>,
    key: TransactionSubmissionKey,
    at: number,
  ): Promise<TransactionSubmissionState> {
    const ids = [...new Set([...key.readContractIds, ...key.consumedContractIds, ...key.createdContractIds])];
    const [completed, contracts] = await Promise.all([
      db
        .selectFrom('command_deduplication')
        .select(['completion_offset', 'record_time_micros', 'submission_id'])
        .where('change_id', '=', key.changeId)
        .where('completion_offset', '<=', at)
        .orderBy('completion_offset', 'desc')
        .limit(1)
        .executeTakeFirst(),
      this.contractsAt(db, ids, at),
    ]);
    return {
      completed: completed
        ? {
            completionOffset: Number(completed.completion_offset),
            recordTimeMicros: BigInt(completed.record_time_micros),
            submissionId: String(completed.submission_id),
          }
        : undefined,
      contracts: new Map(
        [...contracts].map(([id, c]) => [
          id,
          {
            contractId: c.contractId,
            templateId: c.templateId,
            packageName: c.packageName,
            signatories: c.signatories,
            stakeholders: c.stakeholders,
            status: c.status,
            synchronizerId: c.synchronizerId,
          },
        ]),
      ),
    };
  }
}
