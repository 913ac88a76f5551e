import { ErrorCategories as C, LedgerError } from '../errors';

/** Where the ledger has a contract now: its status and synchronizer (the contracts projection). */
export interface ContractLocation {
  status: 'active' | 'in_flight' | 'archived';
  synchronizerId: string | null;
}

/**
 * 400 UNKNOWN_CONTRACT_SYNCHRONIZERS (Canton's TransactionRoutingError.TopologyErrors, base: error/TransactionRoutingError.scala):
 * the router found no synchronizer for input contracts that are unknown or in flight (`notFound`), or archived.
 */
export function unknownContractSynchronizers(
  notFound: readonly string[],
  archived: ReadonlyMap<string, readonly string[]>,
): LedgerError {
  const parts: string[] = [];
  if (notFound.length)
    parts.push(
      `The synchronizers for the contracts (${notFound.join(', ')}) are currently unknown due to ongoing contract reassignments or disconnected synchronizers.`,
    );
  if (archived.size)
    parts.push(
      `The following contracts have been archived: ${[...archived].map(([sync, ids]) => `List(${ids.join(', ')}) on synchronizer ${sync}`).join(', ')}.`,
    );
  const all = [...notFound, ...[...archived.values()].flat()];
  return new LedgerError('UNKNOWN_CONTRACT_SYNCHRONIZERS', C.InvalidGivenCurrentSystemStateOther, parts.join('\n'), {
    resources: [['CONTRACT_IDS', `[${all.join(', ')}]`]],
  });
}

/**
 * Routing of a transaction's input contracts, before hand-over (Canton's ContractsSynchronizerData.create, participant:
 * protocol/submission/routing/): every input contract that is not disclosed must be active on some synchronizer. Archived
 * ones and unknown or in-flight (unassigned) ones are a synchronous UNKNOWN_CONTRACT_SYNCHRONIZERS: no completion.
 * Disclosed contracts are left out, as Canton leaves them out (it may not store them); an interactive submission
 * discloses all its input contracts (ExternalTransactionProcessor.scala), so its inputs are decided by the writer alone.
 * A contract that becomes inactive after this check is the writer's LOCAL_VERDICT_INACTIVE_CONTRACTS, a rejected completion.
 */
export function checkInputContractRouting(
  inputs: readonly string[],
  disclosed: ReadonlySet<string>,
  locations: ReadonlyMap<string, ContractLocation>,
): void {
  const notFound: string[] = [];
  const archived = new Map<string, string[]>();
  for (const id of inputs) {
    if (disclosed.has(id)) continue;
    const at = locations.get(id);
    if (at?.status === 'active') continue;
    if (at?.status === 'archived' && at.synchronizerId)
      archived.set(at.synchronizerId, [...(archived.get(at.synchronizerId) ?? []), id]);
    else notFound.push(id);
  }
  if (notFound.length || archived.size) throw unknownContractSynchronizers(notFound, archived);
}

/** The input contracts routing must look up (see `checkInputContractRouting`); none when all are disclosed. */
export const routedInputs = (inputs: readonly string[], disclosed: ReadonlySet<string>): string[] =>
  inputs.filter((id) => !disclosed.has(id));
