import type { ColumnType, Generated, JSONColumnType } from 'kysely';

/** Table types for Kysely. Each capability adds its tables here (one interface per migration). */
type Int8 = ColumnType<number, number | bigint | string, number | bigint | string>;
/** int8 with a database default: optional on insert. */
type Int8Default = ColumnType<number, number | bigint | string | undefined, number | bigint | string>;

export interface EventLogTable {
  seq: Int8;
  ledger_offset: Int8 | null;
  type: string;
  stream: string;
  data: ColumnType<unknown, string, string>;
  header: ColumnType<unknown, string | null, string | null>;
  recorded_at: string;
}

export interface LedgerHeadTable {
  id: number;
  seq: Int8;
  ledger_offset: Int8;
  record_time_micros: Int8;
}

export interface LedgerTimeTable {
  id: Generated<boolean>;
  static_micros: ColumnType<string, string, string>;
}

export interface BootstrapContractsTable {
  entry_key: string;
  update_id: string;
}

export interface NodeSecretsTable {
  name: string;
  value: string;
}

export interface UsersTable {
  id: string;
  primary_party: Generated<string>;
  is_deactivated: Generated<boolean>;
  annotations: JSONColumnType<Record<string, string>, string, string>;
  resource_version: Int8Default;
  identity_provider_id: Generated<string>;
  created_seq: Int8;
  primary_party_authentication: Generated<boolean>;
}

export interface UserRightsTable {
  user_id: string;
  kind: string;
  party: string;
}

export interface LedgerUpdatesTable {
  ledger_offset: Int8;
  update_id: string;
  kind: string;
  synchronizer_id: string;
  record_time: string;
  command_id: string | null;
  seq: Int8;
  payload: ColumnType<unknown, string, string>;
}

export interface LedgerUpdatePartiesTable {
  party: string;
  ledger_offset: Int8;
}

export interface LedgerPruningTable {
  id: number;
  pruned_up_to: Int8;
}

export interface ContractsTable {
  contract_id: string;
  template_id: string;
  package_name: string;
  signatories: string[];
  stakeholders: string[];
  status: 'active' | 'in_flight' | 'archived';
  synchronizer_id: string | null;
  reassignment_counter: Int8Default;
  created_offset: Int8;
  archived_offset: Int8 | null;
  created_event: ColumnType<unknown, string, string>;
}

export interface ContractActivationsTable {
  activated_offset: Int8;
  node_id: number;
  contract_id: string;
  synchronizer_id: string;
  reassignment_counter: Int8;
  workflow_id: string;
  open_contract: string | null;
  deactivated_offset: Int8 | null;
}

export interface ContractActivationPartiesTable {
  party: string;
  activated_offset: Int8;
  node_id: number;
}

export interface PartySigningKeysTable {
  party_id: string;
  fingerprint: string;
  key_spec: string;
  key_format: string;
  public_key: string;
}

export interface PartySigningThresholdsTable {
  party_id: string;
  threshold: number;
}

export interface PartyDetailsTable {
  party: string;
  is_local: boolean;
  identity_provider_id: Generated<string>;
  annotations: JSONColumnType<Record<string, string>, string, string>;
  resource_version: Int8Default;
  synchronizer_id: string;
  allocated_seq: Int8;
}

export interface IdentityProvidersTable {
  id: string;
  issuer: string;
  jwks_url: string;
  audience: Generated<string>;
  is_deactivated: Generated<boolean>;
  created_seq: Int8;
}

export interface CommandDeduplicationTable {
  change_id: string;
  user_id: string;
  command_id: string;
  submission_id: string;
  completion_offset: Int8;
  update_id: string;
  record_time_micros: Int8;
}

export interface ReassignmentsTable {
  reassignment_id: string;
  source_synchronizer: string;
  target_synchronizer: string;
  submitter: string;
  unassigned_offset: Int8;
  unassigned_at: string;
  assignment_exclusivity: string | null;
  workflow_id: Generated<string>;
  contracts: ColumnType<Array<{ contractId: string; reassignmentCounter: number }>, string, string>;
}

export interface ReassignmentAssignmentsTable {
  reassignment_id: string;
  assigned_offset: Int8;
}

export interface ReassignmentCompletionsTable {
  user_id: string;
  submitter: string;
  command_id: string;
  completion_offset: Int8;
  submission_id: string;
  record_time: string;
}

/** migrations/0016_command_completions.sql */
export interface CommandCompletionsTable {
  completion_offset: Int8;
  user_id: string;
  act_as: string[];
  completion: ColumnType<unknown, string, string>;
}

export interface CoreTables {
  party_details: PartyDetailsTable;
  identity_providers: IdentityProvidersTable;
  command_deduplication: CommandDeduplicationTable;
  command_completions: CommandCompletionsTable;
  reassignments: ReassignmentsTable;
  reassignment_assignments: ReassignmentAssignmentsTable;
  reassignment_completions: ReassignmentCompletionsTable;
  party_signing_keys: PartySigningKeysTable;
  party_signing_thresholds: PartySigningThresholdsTable;
  contracts: ContractsTable;
  contract_activations: ContractActivationsTable;
  contract_activation_parties: ContractActivationPartiesTable;
  ledger_pruning: LedgerPruningTable;
  event_log: EventLogTable;
  ledger_head: LedgerHeadTable;
  node_secrets: NodeSecretsTable;
  ledger_time: LedgerTimeTable;
  bootstrap_contracts: BootstrapContractsTable;
  users: UsersTable;
  user_rights: UserRightsTable;
  ledger_updates: LedgerUpdatesTable;
  ledger_update_parties: LedgerUpdatePartiesTable;
  package_archives: PackageArchivesTable;
  packages: PackagesTable;
  package_vetting: PackageVettingTable;
  package_vetting_serials: PackageVettingSerialsTable;
}

export interface PackageArchivesTable {
  package_id: string;
  chunk: number;
  bytes: Buffer;
}

export interface PackagesTable {
  package_id: string;
  package_name: string;
  package_version: string;
  lf_version: string;
  size_bytes: Int8;
  imports: string[] | null;
  templates: string[] | null;
  uploaded_at: string;
  uploaded_seq: Int8;
}

export interface PackageVettingTable {
  synchronizer_id: string;
  package_id: string;
  valid_from_inclusive: string | null;
  valid_until_exclusive: string | null;
}

export interface PackageVettingSerialsTable {
  synchronizer_id: string;
  serial: number;
}

/** The whole database, as Kysely sees it. */
export type DB = CoreTables;
