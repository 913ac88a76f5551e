/**
 * Explicit disclosure: contracts a submission attaches as created-event blobs (obtained by someone who can see them), which
 * interpretation may use although no submitter is a stakeholder. Validated as Canton's ValidateDisclosedContracts does
 * (`ledger-api-core/…/validation/ValidateDisclosedContracts.scala`, run by CommandsValidator after the deduplication
 * period); the synchronizers they name are checked once interpretation tells which ones were used
 * (`StoreBackedCommandInterpreter.scala` `considerDisclosedContractsSynchronizerId`).
 *
 * Ledgerline's created-event blob is base64 of a `Metadata.InputContract` protobuf (docs/api-coverage.md).
 */
import { Metadata_InputContract } from '@canton-network/core-ledger-proto';
import { isContractId, isUniqueIdentifier } from '@ledgerline/canton';
import { ErrorCategories as C, LedgerError, invalidArgument, invalidField, missingField } from '../errors';

/** A disclosed contract as the request carries it ('' = not given). */
export interface DisclosedContractInput {
  contractId: string;
  /** `<package-id>:<Module>:<Entity>` or ''. */
  templateId: string;
  /** Base64. */
  createdEventBlob: string;
  synchronizerId: string;
}

/** A validated disclosed contract: the blob's contract, with the synchronizer the request names for it ('' = none). */
export interface DisclosedContract {
  contractId: string;
  /** `<package-id>:<Module>:<Entity>` of the blob. */
  templateId: string;
  synchronizerId: string;
  /** The decoded blob (its bytes in `eventBlob`), as a prepared transaction lists an input contract. */
  inputContract: Metadata_InputContract;
}

function decodeBlob(base64: string): Metadata_InputContract | string {
  try {
    const bytes = Buffer.from(base64, 'base64');
    const ic = Metadata_InputContract.fromBinary(bytes);
    if (ic.contract.oneofKind !== 'v1') return 'the payload holds no contract';
    const c = ic.contract.v1;
    if (!c.templateId || !isContractId(c.contractId)) return 'the payload holds no contract id or template id';
    return { ...ic, eventBlob: bytes };
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/** Each disclosed contract in the request's order, the first failure wins; then duplicates must agree. */
export function validateDisclosedContracts(inputs: readonly DisclosedContractInput[]): DisclosedContract[] {
  const out = inputs.map(validateOne);
  const blobs = new Map<string, Set<string>>();
  for (let i = 0; i < out.length; i++) {
    const set = blobs.get(out[i].contractId) ?? new Set<string>();
    set.add(inputs[i].createdEventBlob);
    blobs.set(out[i].contractId, set);
  }
  const conflicting = [...blobs].filter(([, s]) => s.size > 1);
  if (conflicting.length)
    throw new LedgerError(
      'DISCLOSED_CONTRACTS_CONFLICTING_PAYLOADS',
      C.SecurityAlert,
      conflicting
        .map(
          ([id, s]) =>
            `The contractId ${id} for submitted request has conflicting ${s.size} payloads for disclosed contracts`,
        )
        .join('\n'),
    );
  return out;
}

function validateOne(d: DisclosedContractInput): DisclosedContract {
  if (!d.createdEventBlob) throw missingField('DisclosedContract.createdEventBlob');
  if (d.contractId && !isContractId(d.contractId))
    throw invalidField('DisclosedContract.contract_id', `cannot parse ContractId ${JSON.stringify(d.contractId)}`);
  if (d.synchronizerId && !isUniqueIdentifier(d.synchronizerId))
    throw invalidField(
      'DisclosedContract.synchronizer_id',
      `Invalid unique identifier \`${d.synchronizerId}\` with missing namespace.`,
    );
  const ic = decodeBlob(d.createdEventBlob);
  if (typeof ic === 'string') throw invalidArgument(`Unable to decode disclosed contract event payload: ${ic}`);
  const c = (ic.contract as Extract<Metadata_InputContract['contract'], { oneofKind: 'v1' }>).v1;
  const t = c.templateId!;
  const templateId = `${t.packageId}:${t.moduleName}:${t.entityName}`;
  if (d.contractId && d.contractId !== c.contractId)
    throw invalidArgument(
      `Mismatch between DisclosedContract.contract_id (${d.contractId}) and contract_id from decoded DisclosedContract.created_event_blob (${c.contractId})`,
    );
  if (d.templateId && d.templateId !== templateId)
    throw invalidArgument(
      `Mismatch between DisclosedContract.template_id (${d.templateId}) and template_id from decoded DisclosedContract.created_event_blob (${templateId})`,
    );
  return { contractId: c.contractId, templateId, synchronizerId: d.synchronizerId, inputContract: ic };
}

/**
 * The synchronizer the disclosed contracts used in interpretation prescribe ('' = none): those that name one must all
 * name the same (DISCLOSED_CONTRACTS_SYNCHRONIZER_ID_MISMATCH), and it must be the request's, if the request names one
 * (PRESCRIBED_SYNCHRONIZER_ID_MISMATCH).
 */
export function disclosedContractsSynchronizer(used: readonly DisclosedContract[], prescribed: string): string {
  const named = used.filter((d) => d.synchronizerId);
  const syncs = new Set(named.map((d) => d.synchronizerId));
  if (syncs.size > 1)
    throw new LedgerError(
      'DISCLOSED_CONTRACTS_SYNCHRONIZER_ID_MISMATCH',
      C.InvalidIndependentOfSystemState,
      `Some disclosed contracts that were used during command interpretation have mismatching synchronizer ids: Map(${named.map((d) => `ContractId(${d.contractId}) -> ${d.synchronizerId}`).join(', ')})`,
    );
  const [sync] = syncs;
  if (sync === undefined) return '';
  if (prescribed && prescribed !== sync)
    throw new LedgerError(
      'PRESCRIBED_SYNCHRONIZER_ID_MISMATCH',
      C.InvalidIndependentOfSystemState,
      `The target synchronizer=${prescribed} specified in the command submission mismatches the synchronizer id=${sync} of some attached disclosed contracts that have been used in the submission (used-disclosed-contract-ids=Set(${named.map((d) => `ContractId(${d.contractId})`).join(', ')}))`,
    );
  return sync;
}
