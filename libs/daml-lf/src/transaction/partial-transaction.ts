/**
 * The partial transaction an interpretation builds (Canton `speedy/PartialTransaction.scala`): a tree of nodes under
 * the current context (root, exercise or try), node seeds derived from the parent's seed by child position, creates
 * with V1 contract ids, rollback scopes. While it is built, every node and every try scope takes the next id (the ids
 * errors and the exercise trace name); when it is finished, rollback nodes are normalized (Canton
 * `speedy/NormalizeRollbacks.scala`) and node ids are assigned afresh in pre-order.
 */
import type { Create, DamlTransaction, DamlTransaction_Node, Exercise, Fetch } from '@canton-network/core-ledger-proto';

type Node = Extract<DamlTransaction_Node['versionedNode'], { oneofKind: 'v1' }>['v1'];
import { contractIdV1, deriveContractDiscriminator, deriveNodeSeed } from './seeds';

export const LF_VERSION = '2.1';

type TreeNode =
  | { readonly kind: 'create'; readonly node: Create; readonly seed: Buffer }
  | { readonly kind: 'fetch'; readonly node: Fetch }
  | { kind: 'exercise'; node: Exercise; readonly seed: Buffer; readonly children: TreeNode[] }
  | { readonly kind: 'rollback'; readonly children: TreeNode[] };

type ActionNode = Exclude<TreeNode, { kind: 'rollback' }>;
type RollbackNode = Extract<TreeNode, { kind: 'rollback' }>;

interface Counter {
  next: number;
}

interface Context {
  readonly kind: 'root' | 'exercise' | 'try';
  readonly seed: Buffer;
  readonly children: TreeNode[];
  /** Shared with the enclosing context for try scopes: child positions continue across them. */
  readonly counter: Counter;
  readonly exercise?: Extract<TreeNode, { kind: 'exercise' }>;
  readonly authority: Authority;
  /** The id the exercise or try scope took when it began. */
  readonly nodeId?: number;
}

/**
 * The parties whose authority a node has, in the order Canton's messages list them: at the root the submitters, a Scala
 * `Set` kept in insertion order (up to four parties; beyond that a `HashSet`, whose order we do not reproduce); inside a
 * choice the signatories ∪ controllers, or the explicit choice authorizers, a sorted `TreeSet`.
 */
export interface Authority {
  readonly parties: readonly string[];
  readonly kind: 'Set' | 'HashSet' | 'TreeSet';
  readonly has: (party: string) => boolean;
}

export function rootAuthority(committers: Iterable<string>): Authority {
  const parties = [...new Set(committers)];
  const set = new Set(parties);
  return { parties, kind: parties.length <= 4 ? 'Set' : 'HashSet', has: (p) => set.has(p) };
}

export function choiceAuthority(authorizers: Iterable<string>): Authority {
  const parties = [...new Set(authorizers)].sort();
  const set = new Set(parties);
  return { parties, kind: 'TreeSet', has: (p) => set.has(p) };
}

/** An exercise still open when interpretation stopped, with the id it took (Canton's `transactionTrace`). */
export interface OpenExercise {
  readonly nodeId: number;
  readonly exercise: Exercise;
}

export interface CreateInput {
  readonly packageName: string;
  readonly templateId: { packageId: string; moduleName: string; entityName: string };
  readonly argument: Create['argument'];
  readonly signatories: readonly string[];
  readonly observers: readonly string[];
}

const sortedUnique = (xs: Iterable<string>) => [...new Set(xs)].sort();

export class PartialTransaction {
  private readonly roots: TreeNode[] = [];
  private stack: Context[];

  constructor(
    readonly transactionSeed: Buffer,
    /** µs: the preparation (submission) time, which contract ids commit to. */
    readonly preparationTime: bigint,
    committers: readonly string[],
  ) {
    this.stack = [
      {
        kind: 'root',
        seed: transactionSeed,
        children: this.roots,
        counter: { next: 0 },
        authority: rootAuthority(committers),
      },
    ];
  }

  private get ctx(): Context {
    return this.stack[this.stack.length - 1];
  }

  /** The parties whose authority the current node has (committers at the root, signatories ∪ actors inside a choice). */
  get authority(): Authority {
    return this.ctx.authority;
  }

  private inserted = 0;

  /** The id the next node gets (`NodeId(n)` in Canton's messages): nodes inserted so far, in pre-order. */
  nextNodeId(): number {
    return this.inserted;
  }

  private nextSeed(): Buffer {
    return deriveNodeSeed(this.ctx.seed, this.ctx.counter.next++);
  }

  /** Adds a create; returns its contract id. */
  insertCreate(c: CreateInput): string {
    const seed = this.nextSeed();
    this.inserted++;
    const signatories = sortedUnique(c.signatories);
    const stakeholders = sortedUnique([...c.signatories, ...c.observers]);
    const contractId = contractIdV1(deriveContractDiscriminator(seed, this.preparationTime, stakeholders));
    this.ctx.children.push({
      kind: 'create',
      seed,
      node: {
        lfVersion: LF_VERSION,
        contractId,
        packageName: c.packageName,
        templateId: c.templateId,
        argument: c.argument,
        signatories,
        stakeholders,
      },
    });
    return contractId;
  }

  insertFetch(f: Fetch): void {
    this.ctx.counter.next++; // a fetch takes a child position (no seed of its own)
    this.inserted++;
    this.ctx.children.push({ kind: 'fetch', node: f });
  }

  /** Opens an exercise node; its children are seeded from its own seed. */
  beginExercise(e: Omit<Exercise, 'children' | 'exerciseResult'>, authority: Authority): void {
    const seed = this.nextSeed();
    const nodeId = this.inserted++;
    const node: Extract<TreeNode, { kind: 'exercise' }> = {
      kind: 'exercise',
      node: { ...e, children: [] },
      seed,
      children: [],
    };
    this.ctx.children.push(node);
    this.stack.push({
      kind: 'exercise',
      seed,
      children: node.children,
      counter: { next: 0 },
      exercise: node,
      nodeId,
      authority,
    });
  }

  endExercise(result: Exercise['exerciseResult']): void {
    const c = this.stack.pop();
    if (!c?.exercise) throw new Error('endExercise outside an exercise');
    c.exercise.node = { ...c.exercise.node, exerciseResult: result };
  }

  /** Opens a try scope, which takes an id (that of its rollback node, should it roll back); returns a token for `endTry`/`rollbackTry`. */
  beginTry(): number {
    const parent = this.ctx;
    this.stack.push({
      kind: 'try',
      seed: parent.seed,
      children: [],
      counter: parent.counter,
      nodeId: this.inserted++,
      authority: parent.authority,
    });
    return this.stack.length;
  }

  endTry(token: number): void {
    this.unwindTo(token);
    const t = this.stack.pop()!;
    this.ctx.children.push(...t.children);
  }

  /** Closes a try scope whose exception was caught: its nodes become a rollback node (an empty one is dropped when finishing). */
  rollbackTry(token: number): void {
    this.unwindTo(token);
    const t = this.stack.pop()!;
    this.ctx.children.push({ kind: 'rollback', children: t.children });
  }

  /** The exercises open now, innermost first (try scopes are skipped). */
  openExercises(): OpenExercise[] {
    const open: OpenExercise[] = [];
    for (let i = this.stack.length - 1; i >= 0; i--) {
      const c = this.stack[i];
      if (c.exercise && c.nodeId !== undefined) open.push({ nodeId: c.nodeId, exercise: c.exercise.node });
    }
    return open;
  }

  /** Exercises left open by an exception inside the try are discarded with it. */
  private unwindTo(token: number): void {
    while (this.stack.length > token) {
      const c = this.stack.pop()!;
      if (c.exercise) c.exercise.node = { ...c.exercise.node, exerciseResult: undefined };
    }
  }

  private hasRollbacks(): boolean {
    const todo: TreeNode[] = [...this.roots];
    while (todo.length) {
      const n = todo.pop()!;
      if (n.kind === 'rollback') return true;
      if (n.kind === 'exercise') for (const c of n.children) todo.push(c);
    }
    return false;
  }

  /** The finished transaction: rollbacks normalized, node ids in pre-order, seeds of creates and exercises. */
  finish(): { transaction: DamlTransaction; nodeSeeds: { nodeId: number; seed: Buffer }[] } {
    const nodes: DamlTransaction['nodes'] = [];
    const nodeSeeds: { nodeId: number; seed: Buffer }[] = [];
    // Iterative pre-order numbering.
    const ids = new Map<TreeNode, number>();
    const order: TreeNode[] = [];
    const roots = this.hasRollbacks() ? normalizeRollbacks(this.roots) : this.roots;
    const todo: TreeNode[] = [...roots].reverse();
    while (todo.length) {
      const n = todo.pop()!;
      ids.set(n, order.length);
      order.push(n);
      if (n.kind === 'exercise' || n.kind === 'rollback')
        for (let i = n.children.length - 1; i >= 0; i--) todo.push(n.children[i]);
    }
    for (const n of order) {
      const id = ids.get(n)!;
      let v1: Node;
      switch (n.kind) {
        case 'create':
          v1 = { nodeType: { oneofKind: 'create', create: n.node } };
          nodeSeeds.push({ nodeId: id, seed: n.seed });
          break;
        case 'fetch':
          v1 = { nodeType: { oneofKind: 'fetch', fetch: n.node } };
          break;
        case 'exercise':
          v1 = {
            nodeType: {
              oneofKind: 'exercise',
              exercise: { ...n.node, children: n.children.map((c) => String(ids.get(c))) },
            },
          };
          nodeSeeds.push({ nodeId: id, seed: n.seed });
          break;
        case 'rollback':
          v1 = {
            nodeType: { oneofKind: 'rollback', rollback: { children: n.children.map((c) => String(ids.get(c))) } },
          };
          break;
      }
      nodes.push({ nodeId: String(id), versionedNode: { oneofKind: 'v1', v1 } });
    }
    return {
      transaction: {
        version: LF_VERSION,
        roots: roots.map((r) => String(ids.get(r))),
        nodes,
        nodeSeeds: nodeSeeds.map((s) => ({ nodeId: s.nodeId, seed: s.seed })),
      },
      nodeSeeds,
    };
  }
}

/**
 * Canton's rollback normal form (`speedy/NormalizeRollbacks.scala`): an empty rollback is dropped; a rollback whose
 * first child is a rollback is split into that rollback and a rollback of the rest; a rollback whose last child is a
 * rollback takes that rollback's children in its place; a rollback of a single rollback is that rollback.
 */
function normalizeRollbacks(nodes: readonly TreeNode[]): TreeNode[] {
  return nodes.flatMap(normalizeNode);
}

function normalizeNode(n: TreeNode): TreeNode[] {
  switch (n.kind) {
    case 'rollback':
      return makeRollback(normalizeRollbacks(n.children));
    case 'exercise':
      return [{ ...n, children: normalizeRollbacks(n.children) }];
    default:
      return [n];
  }
}

/** The normal form of a rollback of these (normalized) nodes. */
function makeRollback(ns: TreeNode[]): TreeNode[] {
  const out: TreeNode[] = [];
  let rest = ns;
  // A leading rollback stands on its own; the rest rolls back separately.
  while (rest.length > 1 && rest[0].kind === 'rollback') {
    out.push(rest[0]);
    rest = rest.slice(1);
  }
  if (rest.length === 0) return out;
  if (rest.length === 1) {
    out.push(rest[0].kind === 'rollback' ? rest[0] : { kind: 'rollback', children: [rest[0] as ActionNode] });
    return out;
  }
  const last = rest[rest.length - 1];
  const children = last.kind === 'rollback' ? [...rest.slice(0, -1), ...(last as RollbackNode).children] : rest;
  out.push({ kind: 'rollback', children });
  return out;
}
