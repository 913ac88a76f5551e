import { contractNotActive, createsExistingContracts, failedToExecute, inactiveContracts } from './errors';
import { templateIdString, type OrderedNode, type WellFormedTransaction } from './well-formedness';

/** What the ledger knows about a contract (the `contracts` projection). */
export interface StoredContractState {
  contractId: string;
  /** `<packageId>:<Module>:<Entity>` */
  templateId: string;
  packageName: string;
  signatories: readonly string[];
  stakeholders: readonly string[];
  status: 'active' | 'in_flight' | 'archived';
  synchronizerId: string | null;
}

export interface ConsistencyInput {
  wf: WellFormedTransaction;
  /** The transaction's synchronizer (`metadata.synchronizerId`). */
  synchronizerId: string;
  /** Stored state of every input contract and of every created contract id this ledger already knows. */
  contracts: ReadonlyMap<string, StoredContractState>;
}

export interface ConsistencyResult {
  /** Nodes whose effects are kept (not under a Rollback; Rollback nodes themselves excluded), in execution order. */
  effective: OrderedNode[];
  /** Contracts consumed by the transaction in the end (rolled-back consumptions excluded). */
  consumed: ReadonlySet<string>;
  /** Input contracts (from the ledger) the transaction archives. */
  archivedInputs: string[];
  /** Contracts created and consumed by this transaction: no ACS events. */
  transient: ReadonlySet<string>;
}

interface ContractInfo {
  templateId: string;
  packageName: string;
  signatories: readonly string[];
  stakeholders: readonly string[];
}

const sameSet = (a: readonly string[], b: readonly string[]) => {
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((x) => sb.has(x));
};

/**
 * Consistency of the transaction against this ledger:
 * - created contract ids were never seen before on this ledger (LOCAL_VERDICT_CREATES_EXISTING_CONTRACTS);
 * - every input contract (exercised or fetched, not created earlier in this transaction) is active on this ledger, on the
 *   transaction's synchronizer — archived, unknown, in-flight (being reassigned) or elsewhere → LOCAL_VERDICT_INACTIVE_CONTRACTS;
 * - the template id, package name, signatories and stakeholders a node states match the contract's;
 * - nothing is used after it was consumed in the same transaction (CONTRACT_NOT_ACTIVE), so nothing is consumed twice;
 *   contracts created under a Rollback do not survive it, and consumptions under a Rollback are undone when it ends;
 * - a consuming Exercise archives its contract; a contract created and consumed here is transient.
 */
export function checkConsistency({ wf, synchronizerId, contracts }: ConsistencyInput): ConsistencyResult {
  const existing = wf.createdContractIds.filter((id) => contracts.has(id));
  if (existing.length) throw createsExistingContracts(existing);

  const inactive = wf.inputContractIds.filter((id) => {
    const c = contracts.get(id);
    return !c || c.status !== 'active' || c.synchronizerId !== synchronizerId;
  });
  if (inactive.length) throw inactiveContracts(inactive);
  return walk(wf, contracts);
}

/**
 * What `checkConsistency` returns for this transaction whatever the ledger state, when the state lets it through: the
 * result depends on the transaction alone (the state only decides whether it is rejected). Undefined when the transaction
 * contradicts itself (a contract used after it was consumed): that rejection is left to `checkConsistency`, which reports
 * it in its order among the other checks. Lets the effects be rendered before the state is read (outside the writer).
 */
export function transactionShape(wf: WellFormedTransaction): ConsistencyResult | undefined {
  try {
    return walk(wf, null);
  } catch {
    return undefined;
  }
}

/** The node walk of `checkConsistency`; with `contracts` null, input contracts are not compared with stored ones. */
function walk(
  wf: WellFormedTransaction,
  contracts: ReadonlyMap<string, StoredContractState> | null,
): ConsistencyResult {
  let consumed = new Set<string>();
  let local = new Map<string, ContractInfo>();
  const everCreated = new Set<string>();
  const rollbacks: Array<{ end: number; consumed: Set<string>; local: Map<string, ContractInfo> }> = [];
  const effective: OrderedNode[] = [];

  for (const n of wf.nodes) {
    while (rollbacks.length && rollbacks[rollbacks.length - 1].end < n.position) {
      const r = rollbacks.pop()!;
      consumed = r.consumed;
      local = r.local;
    }
    const underRollback = rollbacks.length > 0;
    const node = n.node;
    if (node.kind === 'rollback') {
      rollbacks.push({ end: n.lastDescendant, consumed: new Set(consumed), local: new Map(local) });
      continue;
    }
    if (!underRollback) effective.push(n);
    if (node.kind === 'create') {
      const c = node.create;
      local.set(c.contractId, {
        templateId: templateIdString(c.templateId),
        packageName: c.packageName,
        signatories: c.signatories,
        stakeholders: c.stakeholders,
      });
      everCreated.add(c.contractId);
      continue;
    }
    const used = node.kind === 'exercise' ? node.exercise : node.fetch;
    const cid = used.contractId;
    const tid = templateIdString(used.templateId);
    if (consumed.has(cid) || (everCreated.has(cid) && !local.has(cid))) throw contractNotActive(cid, tid);
    const info: ContractInfo | undefined = local.get(cid) ?? contracts?.get(cid);
    if (!info) {
      if (contracts === null) {
        if (node.kind === 'exercise' && node.exercise.consuming) consumed.add(cid);
        continue; // an input contract, compared with its stored state by checkConsistency
      }
      throw inactiveContracts([cid]); // unreachable: inputs were checked above
    }
    const mismatch = (what: string, stated: string, actual: string) =>
      failedToExecute(`Node ${n.nodeId} states ${what} ${stated} for contract ${cid}, but the contract has ${actual}`);
    if (tid !== info.templateId) throw mismatch('template id', tid, info.templateId);
    if (used.packageName !== info.packageName) throw mismatch('package name', used.packageName, info.packageName);
    if (!sameSet(used.signatories, info.signatories))
      throw mismatch('signatories', `[${used.signatories.join(', ')}]`, `[${info.signatories.join(', ')}]`);
    if (!sameSet(used.stakeholders, info.stakeholders))
      throw mismatch('stakeholders', `[${used.stakeholders.join(', ')}]`, `[${info.stakeholders.join(', ')}]`);
    if (node.kind === 'exercise' && node.exercise.consuming) consumed.add(cid);
  }
  while (rollbacks.length) {
    const r = rollbacks.pop()!;
    consumed = r.consumed;
    local = r.local;
  }
  const transient = new Set([...local.keys()].filter((id) => consumed.has(id)));
  const archivedInputs = wf.inputContractIds.filter((id) => consumed.has(id));
  return { effective, consumed, archivedInputs, transient };
}
