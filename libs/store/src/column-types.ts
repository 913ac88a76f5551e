import type { DB } from './schema';

/** SQL types of columns, as PostgreSQL's `format_type` prints them. */
export type SqlType = 'bigint' | 'integer' | 'text' | 'text[]' | 'boolean' | 'jsonb' | 'bytea';

/** Every column of every table of the Kysely schema `D`, with its SQL type. */
export type ColumnTypeMap<D> = { readonly [T in keyof D]: { readonly [C in keyof D[T]]-?: SqlType } };

/**
 * The SQL type of every column of the service's tables (migrations/). The writer's statement builder casts the rows it
 * sends to these types. `satisfies` makes the compiler check that every table and column of `DB` is listed and nothing
 * else; test/integration/store/column-types.test.ts checks the types against the migrated database.
 */
export const COLUMN_TYPES = {
  event_log: {
    seq: 'bigint',
    ledger_offset: 'bigint',
    type: 'text',
    stream: 'text',
    data: 'jsonb',
    header: 'jsonb',
    recorded_at: 'text',
  },
  ledger_head: { id: 'integer', seq: 'bigint', ledger_offset: 'bigint', record_time_micros: 'bigint' },
  node_secrets: { name: 'text', value: 'text' },
  ledger_time: { id: 'boolean', static_micros: 'bigint' },
  bootstrap_contracts: { entry_key: 'text', update_id: 'text' },
  users: {
    id: 'text',
    primary_party: 'text',
    is_deactivated: 'boolean',
    annotations: 'jsonb',
    resource_version: 'bigint',
    identity_provider_id: 'text',
    created_seq: 'bigint',
    primary_party_authentication: 'boolean',
  },
  user_rights: { user_id: 'text', kind: 'text', party: 'text' },
  ledger_updates: {
    ledger_offset: 'bigint',
    update_id: 'text',
    kind: 'text',
    synchronizer_id: 'text',
    record_time: 'text',
    command_id: 'text',
    seq: 'bigint',
    payload: 'jsonb',
  },
  ledger_update_parties: { party: 'text', ledger_offset: 'bigint' },
  ledger_pruning: { id: 'integer', pruned_up_to: 'bigint' },
  party_details: {
    party: 'text',
    is_local: 'boolean',
    identity_provider_id: 'text',
    annotations: 'jsonb',
    resource_version: 'bigint',
    synchronizer_id: 'text',
    allocated_seq: 'bigint',
  },
  identity_providers: {
    id: 'text',
    issuer: 'text',
    jwks_url: 'text',
    audience: 'text',
    is_deactivated: 'boolean',
    created_seq: 'bigint',
  },
  contracts: {
    contract_id: 'text',
    template_id: 'text',
    package_name: 'text',
    signatories: 'text[]',
    stakeholders: 'text[]',
    status: 'text',
    synchronizer_id: 'text',
    reassignment_counter: 'bigint',
    created_offset: 'bigint',
    archived_offset: 'bigint',
    created_event: 'jsonb',
  },
  contract_activations: {
    activated_offset: 'bigint',
    node_id: 'integer',
    contract_id: 'text',
    synchronizer_id: 'text',
    reassignment_counter: 'bigint',
    workflow_id: 'text',
    open_contract: 'text',
    deactivated_offset: 'bigint',
  },
  contract_activation_parties: { party: 'text', activated_offset: 'bigint', node_id: 'integer' },
  party_signing_keys: {
    party_id: 'text',
    fingerprint: 'text',
    key_spec: 'text',
    key_format: 'text',
    public_key: 'text',
  },
  party_signing_thresholds: { party_id: 'text', threshold: 'integer' },
  command_completions: { completion_offset: 'bigint', user_id: 'text', act_as: 'text[]', completion: 'jsonb' },
  command_deduplication: {
    change_id: 'text',
    completion_offset: 'bigint',
    user_id: 'text',
    command_id: 'text',
    submission_id: 'text',
    update_id: 'text',
    record_time_micros: 'bigint',
  },
  reassignments: {
    reassignment_id: 'text',
    source_synchronizer: 'text',
    target_synchronizer: 'text',
    submitter: 'text',
    unassigned_offset: 'bigint',
    unassigned_at: 'text',
    assignment_exclusivity: 'text',
    workflow_id: 'text',
    contracts: 'jsonb',
  },
  reassignment_assignments: { reassignment_id: 'text', assigned_offset: 'bigint' },
  reassignment_completions: {
    user_id: 'text',
    submitter: 'text',
    command_id: 'text',
    completion_offset: 'bigint',
    submission_id: 'text',
    record_time: 'text',
  },
  package_archives: { package_id: 'text', chunk: 'integer', bytes: 'bytea' },
  packages: {
    package_id: 'text',
    package_name: 'text',
    package_version: 'text',
    lf_version: 'text',
    size_bytes: 'bigint',
    imports: 'text[]',
    templates: 'text[]',
    uploaded_at: 'text',
    uploaded_seq: 'bigint',
  },
  package_vetting: {
    synchronizer_id: 'text',
    package_id: 'text',
    valid_from_inclusive: 'text',
    valid_until_exclusive: 'text',
  },
  package_vetting_serials: { synchronizer_id: 'text', serial: 'integer' },
} as const satisfies ColumnTypeMap<DB>;

/** The columns of table `T` whose SQL type is jsonb. */
export type JsonColumn<T extends keyof DB> = {
  [C in keyof (typeof COLUMN_TYPES)[T]]: (typeof COLUMN_TYPES)[T][C] extends 'jsonb' ? C : never;
}[keyof (typeof COLUMN_TYPES)[T]];
