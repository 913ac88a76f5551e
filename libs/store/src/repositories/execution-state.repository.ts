import { sql, type Kysely, type Transaction } from 'kysely';
import type { CompletedChange, StoredContractState } from '@ledgerline/domain';
import type { DB } from '../schema';

/** What the writer reads to decide an externally signed transaction, in one round trip. */
export interface ExecutionState {
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
 * Reads for interactive-submission execution: the change's last completion (`command_deduplication`) and the stored state
 * of the given contract ids (`contracts`), plus the parties' registered signing keys (`party_signing_keys` /
 * `party_signing_thresholds`, filled by external-party allocation).
 */
export class ExecutionStateRepository {
  async load(db: Kysely<DB> | Transaction<DB>, changeId: string, contractIds: readonly string[]): Promise<ExecutionState> {
    const { rows } = await sql<{ k: string; r: Record<string, unknown> }>`
      (SELECT 'd' AS k, jsonb_build_object('o', completion_offset, 't', record_time_micros::text, 's', submission_id) AS r
        FROM command_deduplication WHERE change_id = ${changeId} ORDER BY completion_offset DESC LIMIT 1)
      UNION ALL
      SELECT 'c' AS k, jsonb_build_object('id', contract_id, 'tid', template_id, 'pkg', package_name, 'sig', signatories,
                                          'stk', stakeholders, 'st', status, 'sync', synchronizer_id) AS r
        FROM contracts WHERE contract_id = ANY(${contractIds as string[]}::text[])`.execute(db);
    let completed: CompletedChange | undefined;
    const contracts = new Map<string, StoredContractState>();
    for (const { k, r } of rows) {
      if (k === 'd') completed = { completionOffset: Number(r.o), recordTimeMicros: BigInt(r.t as string), submissionId: String(r.s) };
      else {
        contracts.set(r.id as string, {
          contractId: r.id as string,
          templateId: r.tid as string,
          packageName: r.pkg as string,
          signatories: r.sig as string[],
          stakeholders: r.stk as string[],
          status: r.st as StoredContractState['status'],
          synchronizerId: (r.sync as string | null) ?? null,
        });
      }
    }
    return { completed, contracts };
  }

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

/**
 * Registers a party's signing keys directly in `party_signing_keys` / `party_signing_thresholds`, bypassing onboarding.
 * For tests and benchmarks only (the service fills these tables through external-party allocation); the rows are not in
 * the event log, so a projection rebuild that owns these tables would drop them.
 */
export async function seedPartySigningKeys(db: Kysely<DB>, party: string, keys: PartySigningKeyRow[], threshold = 1): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('party_signing_keys').where('party_id', '=', party).execute();
    await trx
      .insertInto('party_signing_keys')
      .values(keys.map((k) => ({ party_id: party, fingerprint: k.fingerprint, key_spec: k.keySpec, key_format: k.keyFormat, public_key: k.publicKey })))
      .execute();
    await trx
      .insertInto('party_signing_thresholds')
      .values({ party_id: party, threshold })
      .onConflict((oc) => oc.column('party_id').doUpdateSet({ threshold }))
      .execute();
  });
}
