import type { Create, Exercise, Fetch, Value } from '@canton-network/core-ledger-proto';
import {
  CantonError,
  computeUnicum,
  contractSalt,
  isLocalContractId,
  legacyContractInstanceHash,
  suffixedContractId,
} from '@ledgerline/canton';
import { failedToExecute } from './errors';
import type { ModelNode, OrderedNode, WellFormedTransaction } from './well-formedness';

/**
 * Contract ids at commit (Canton's `ContractIdSuffixer`): every contract the transaction creates with a local id
 * (`00` ‖ discriminator) gets Canton's suffix (see `@ledgerline/canton` `contract-id-suffix.ts`), computed in execution
 * order over the create node with its argument already suffixed; then every occurrence of a local id in the transaction
 * (created and exercised contract ids, create and choice arguments, exercise results) is replaced. Created ids that are
 * not local (already suffixed) are kept.
 */
export interface SuffixingInput {
  wf: WellFormedTransaction;
  /** The ledger effective time the contracts are created at, µs. */
  ledgerEffectiveTime: bigint;
  synchronizerId: string;
  /** 32 random bytes per transaction (Canton's participant-chosen salt seed). */
  saltSeed: Uint8Array;
}

export interface SuffixedTransaction {
  wf: WellFormedTransaction;
  /** Local id → committed id. */
  suffixed: ReadonlyMap<string, string>;
}

export function suffixContractIds({
  wf,
  ledgerEffectiveTime,
  synchronizerId,
  saltSeed,
}: SuffixingInput): SuffixedTransaction {
  const suffixed = new Map<string, string>();
  let createIndex = 0;
  for (const n of wf.nodes) {
    if (n.node.kind !== 'create') continue;
    const c = n.node.create;
    const index = createIndex++;
    if (!isLocalContractId(c.contractId)) continue;
    const argument = rewriteValue(c.argument, suffixed) ?? { sum: { oneofKind: 'unit', unit: {} } };
    try {
      const unicum = computeUnicum({
        salt: contractSalt(saltSeed, index, synchronizerId),
        createdAt: ledgerEffectiveTime,
        signatories: c.signatories,
        stakeholders: c.stakeholders,
        contractHash: legacyContractInstanceHash(c.packageName, c.templateId!, argument),
      });
      suffixed.set(c.contractId, suffixedContractId(c.contractId, unicum));
    } catch (e) {
      if (e instanceof CantonError)
        throw failedToExecute(`Node ${n.nodeId}: cannot suffix contract id ${c.contractId}: ${e.message}`);
      throw e;
    }
  }
  if (suffixed.size === 0) return { wf, suffixed };
  const id = (cid: string) => suffixed.get(cid) ?? cid;
  return {
    wf: {
      nodes: wf.nodes.map((n): OrderedNode => ({ ...n, node: rewriteNode(n.node, suffixed) })),
      createdContractIds: wf.createdContractIds.map(id),
      inputContractIds: wf.inputContractIds,
    },
    suffixed,
  };
}

function rewriteNode(node: ModelNode, ids: ReadonlyMap<string, string>): ModelNode {
  const id = (cid: string) => ids.get(cid) ?? cid;
  switch (node.kind) {
    case 'create': {
      const create: Create = {
        ...node.create,
        contractId: id(node.create.contractId),
        argument: rewriteValue(node.create.argument, ids),
      };
      return { kind: 'create', create };
    }
    case 'exercise': {
      const e = node.exercise;
      const exercise: Exercise = {
        ...e,
        contractId: id(e.contractId),
        chosenValue: rewriteValue(e.chosenValue, ids),
        exerciseResult: rewriteValue(e.exerciseResult, ids),
      };
      return { kind: 'exercise', exercise };
    }
    case 'fetch': {
      const fetch: Fetch = { ...node.fetch, contractId: id(node.fetch.contractId) };
      return { kind: 'fetch', fetch };
    }
    case 'rollback':
      return node;
  }
}

/** The value with its contract ids replaced; the same object where nothing changes. */
export function rewriteValue(v: Value | undefined, ids: ReadonlyMap<string, string>): Value | undefined {
  const sum = v?.sum;
  if (!v || !sum) return v;
  const each = (xs: Value[]) => {
    let changed = false;
    const out = xs.map((x) => {
      const y = rewriteValue(x, ids)!;
      if (y !== x) changed = true;
      return y;
    });
    return changed ? out : xs;
  };
  switch (sum.oneofKind) {
    case 'contractId': {
      const to = ids.get(sum.contractId);
      return to === undefined ? v : { ...v, sum: { oneofKind: 'contractId', contractId: to } };
    }
    case 'optional': {
      const inner = sum.optional.value;
      const to = rewriteValue(inner, ids);
      return to === inner ? v : { ...v, sum: { oneofKind: 'optional', optional: { ...sum.optional, value: to } } };
    }
    case 'list': {
      const elements = each(sum.list.elements);
      return elements === sum.list.elements ? v : { ...v, sum: { oneofKind: 'list', list: { ...sum.list, elements } } };
    }
    case 'record': {
      const values = sum.record.fields.map((f) => rewriteValue(f.value, ids));
      if (values.every((x, i) => x === sum.record.fields[i].value)) return v;
      return {
        ...v,
        sum: {
          oneofKind: 'record',
          record: { ...sum.record, fields: sum.record.fields.map((f, i) => ({ ...f, value: values[i] })) },
        },
      };
    }
    case 'variant': {
      const inner = sum.variant.value;
      const to = rewriteValue(inner, ids);
      return to === inner ? v : { ...v, sum: { oneofKind: 'variant', variant: { ...sum.variant, value: to } } };
    }
    case 'textMap': {
      const values = sum.textMap.entries.map((e) => rewriteValue(e.value, ids));
      if (values.every((x, i) => x === sum.textMap.entries[i].value)) return v;
      return {
        ...v,
        sum: {
          oneofKind: 'textMap',
          textMap: { ...sum.textMap, entries: sum.textMap.entries.map((e, i) => ({ ...e, value: values[i] })) },
        },
      };
    }
    case 'genMap': {
      const entries = sum.genMap.entries.map((e) => ({
        ...e,
        key: rewriteValue(e.key, ids),
        value: rewriteValue(e.value, ids),
      }));
      if (entries.every((e, i) => e.key === sum.genMap.entries[i].key && e.value === sum.genMap.entries[i].value))
        return v;
      return { ...v, sum: { oneofKind: 'genMap', genMap: { ...sum.genMap, entries } } };
    }
    default:
      return v;
  }
}
