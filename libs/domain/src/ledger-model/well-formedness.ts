import type {
  Create,
  DamlTransaction,
  DamlTransaction_Node,
  Exercise,
  Fetch,
  Identifier,
  Rollback,
} from '@canton-network/core-ledger-proto';
import { isContractId } from '@ledgerline/canton';
import { failedToExecute } from './errors';

/**
 * Well-formedness of a prepared transaction's node tree, checked before anything else reads it: exactly one root node
 * (Canton's default `enforceSingleRootNode`; commands of local parties may have several); node ids unique; every child
 * present; every node reachable from the root exactly once (a tree); every node a known v1 kind; contract ids well
 * formed; no contract created twice. The result lists the nodes in execution order (pre-order), which every later rule
 * walks.
 */

type V1 = Extract<DamlTransaction_Node['versionedNode'], { oneofKind: 'v1' }>['v1'];

export type ModelNode =
  | { kind: 'create'; create: Create }
  | { kind: 'exercise'; exercise: Exercise }
  | { kind: 'fetch'; fetch: Fetch }
  | { kind: 'rollback'; rollback: Rollback };

export interface OrderedNode {
  /** The prepared transaction's node id. */
  nodeId: string;
  /** Position in pre-order over the whole tree: the node id of the resulting events. */
  position: number;
  /** Position of the last node of this node's subtree (itself when it has no children). */
  lastDescendant: number;
  /** Index in `nodes` of the parent, -1 for the root. */
  parent: number;
  node: ModelNode;
}

export interface WellFormedTransaction {
  /** Pre-order (execution order). */
  nodes: OrderedNode[];
  /** Contract ids of Create nodes, in order. */
  createdContractIds: string[];
  /** Contract ids exercised or fetched that this transaction does not create before using them. */
  inputContractIds: string[];
}

export const templateIdString = (id: Identifier | undefined): string =>
  id ? `${id.packageId}:${id.moduleName}:${id.entityName}` : '';

function toModelNode(nodeId: string, v1: V1 | undefined): ModelNode {
  const t = v1?.nodeType;
  switch (t?.oneofKind) {
    case 'create':
      return { kind: 'create', create: t.create };
    case 'exercise':
      return { kind: 'exercise', exercise: t.exercise };
    case 'fetch':
      return { kind: 'fetch', fetch: t.fetch };
    case 'rollback':
      return { kind: 'rollback', rollback: t.rollback };
    default:
      throw failedToExecute(`Node ${nodeId} has no supported node type`);
  }
}

function checkTemplateId(nodeId: string, id: Identifier | undefined): void {
  if (!id || !id.packageId || !id.moduleName || !id.entityName)
    throw failedToExecute(`Node ${nodeId} has no complete template id`);
}

/**
 * `singleRoot` (default): one root node, as interactive submission requires; without it (commands of local parties, one
 * root per command) the roots run in order.
 */
export function checkWellFormed(
  tx: DamlTransaction | undefined,
  opts: { singleRoot?: boolean } = {},
): WellFormedTransaction {
  if (!tx) throw failedToExecute('The prepared transaction has no transaction');
  const roots = tx.roots ?? [];
  if (roots.length > 1 && opts.singleRoot !== false)
    throw failedToExecute('Transaction with multiple root nodes are not supported');
  if (roots.length === 0) throw failedToExecute('The transaction has no root node');

  const byId = new Map<string, ModelNode>();
  for (const n of tx.nodes ?? []) {
    if (byId.has(n.nodeId)) throw failedToExecute(`Node id ${n.nodeId} is used by more than one node`);
    if (n.versionedNode?.oneofKind !== 'v1') throw failedToExecute(`Node ${n.nodeId} has an unsupported node version`);
    byId.set(n.nodeId, toModelNode(n.nodeId, n.versionedNode.v1));
  }

  const nodes: OrderedNode[] = [];
  const visited = new Set<string>();
  const created = new Set<string>();
  const createdContractIds: string[] = [];
  const inputs = new Set<string>();

  const visit = (nodeId: string, parent: number): void => {
    const node = byId.get(nodeId);
    if (!node) throw failedToExecute(`Node ${nodeId} is referenced but not present in the transaction`);
    if (visited.has(nodeId)) throw failedToExecute(`Node ${nodeId} appears more than once in the transaction tree`);
    visited.add(nodeId);
    const index = nodes.length;
    const entry: OrderedNode = { nodeId, position: index, lastDescendant: index, parent, node };
    nodes.push(entry);
    let children: readonly string[] = [];
    switch (node.kind) {
      case 'create': {
        const c = node.create;
        checkTemplateId(nodeId, c.templateId);
        if (!isContractId(c.contractId))
          throw failedToExecute(`Node ${nodeId} creates a contract with a malformed contract id '${c.contractId}'`);
        if (created.has(c.contractId)) throw failedToExecute(`Contract ${c.contractId} is created more than once`);
        created.add(c.contractId);
        createdContractIds.push(c.contractId);
        break;
      }
      case 'exercise':
      case 'fetch': {
        const n = node.kind === 'exercise' ? node.exercise : node.fetch;
        checkTemplateId(nodeId, n.templateId);
        if (!isContractId(n.contractId))
          throw failedToExecute(`Node ${nodeId} uses a malformed contract id '${n.contractId}'`);
        if (!created.has(n.contractId)) inputs.add(n.contractId);
        if (node.kind === 'exercise') {
          if (!node.exercise.choiceId) throw failedToExecute(`Node ${nodeId} exercises no choice`);
          children = node.exercise.children ?? [];
        }
        break;
      }
      case 'rollback':
        children = node.rollback.children ?? [];
        break;
    }
    for (const child of children) visit(child, index);
    entry.lastDescendant = nodes.length - 1;
  };
  for (const root of roots) visit(root, -1);

  if (visited.size !== byId.size) {
    const orphan = [...byId.keys()].find((id) => !visited.has(id));
    throw failedToExecute(`Node ${orphan} is not reachable from the root node`);
  }
  return { nodes, createdContractIds, inputContractIds: [...inputs] };
}
