import { sql, type Kysely, type Transaction } from 'kysely';
import type { CompletedChange, StoredContractState } from '@ledgerline/domain';
import type { DB } from '../schema';
import type { StateLoader } from '../event-store';
import { prepared } from '../database';

/** What the writer decides an externally signed transaction on. */
export interface ExecuteSubmissionState {
  completed: CompletedChange | undefined;
  contracts: Map<string, StoredContractState>;
}

export interface PartySigningKeyRow {
  fingerprint: string;
  keySpec: string;
  keyFormat: string;
  /** base64 */
  publicKey: string;
}

/**
 * Reads for interactive-submission execution outside the writer: the parties' registered signing keys
 * (`party_signing_keys` / `party_signing_thresholds`, filled by external-party allocation). The writer's reads (the
 * change's last completion in `command_deduplication`, the stored state of contracts) are `executeSubmissionStateLoader`.
 */
export class ExecuteSubmissionRepository {
  /** Registered keys and threshold per party (parties without keys are absent). */
  async signingKeys(db: Kysely<DB>, parties: readonly string[]): Promise<Map<string, { threshold: number; keys: PartySigningKeyRow[] }>> {
    const out = new Map<string, { threshold: number; keys: PartySigningKeyRow[] }>();
    if (parties.length === 0) return out;
    const rows = await db
      .selectFrom('party_signing_keys as k')
      .leftJoin('party_signing_thresholds as t', 't.party_id', 'k.party_id')
      .select(['k.party_id', 'k.fingerprint', 'k.key_spec', 'k.key_format', 'k.public_key', 't.threshold'])
      .where('k.party_id', 'in', parties as string[])
      .orderBy('k.party_id')
      .orderBy('k.fingerprint')
      .execute();
    for (const r of rows) {
      const entry = out.get(r.party_id) ?? { threshold: r.threshold ?? 1, keys: [] };
      entry.keys.push({ fingerprint: r.fingerprint, keySpec: r.key_spec, keyFormat: r.key_format, publicKey: r.public_key });
      out.set(r.party_id, entry);
    }
    return out;
  }
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

/** Which change an execution completes and the contracts it reads or creates. */
export interface ExecuteSubmissionKey {
  changeId: string;
  contractIds: readonly string[];
}

/**
 * What the writer decides executions on (`ExecuteSubmissionState`), for many executions in one statement. `= ANY (ARRAY(…))`
 * keeps the contracts lookup an index scan whatever the plan (the statement is prepared, and a generic plan made while
 * the table was small must not seq-scan it later).
 */
export const executeSubmissionStateLoader: StateLoader<ExecuteSubmissionKey, ExecuteSubmissionState> = {
  name: 'execution',
  async load(db: Transaction<DB>, keys: readonly ExecuteSubmissionKey[]): Promise<ExecuteSubmissionState[]> {
    const { rows } = await prepared(sql<{ d: Record<string, unknown> | null; c: Array<Record<string, unknown>> | null }>`
      SELECT
        (SELECT jsonb_build_object('o', completion_offset, 't', record_time_micros::text, 's', submission_id)
          FROM command_deduplication d WHERE d.change_id = k.change_id ORDER BY completion_offset DESC LIMIT 1) AS d,
        (SELECT jsonb_agg(jsonb_build_object('id', contract_id, 'tid', template_id, 'pkg', package_name, 'sig', signatories,
                                             'stk', stakeholders, 'st', status, 'sync', synchronizer_id))
          FROM contracts c WHERE c.contract_id = ANY (ARRAY(SELECT jsonb_array_elements_text(k.ids)))) AS c
      FROM unnest(${keys.map((k) => k.changeId)}::text[], ${keys.map((k) => JSON.stringify(k.contractIds))}::jsonb[])
        WITH ORDINALITY AS k(change_id, ids, n)
      ORDER BY k.n`).execute(db);
    return rows.map((r) => ({
      completed: r.d ? completedChange(r.d) : undefined,
      contracts: new Map((r.c ?? []).map((c) => [c.id as string, contractState(c)])),
    }));
  },
};
