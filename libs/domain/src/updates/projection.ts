import type { UpdateKind } from '../ledger/events';
import type {
  StoredAssignedEvent,
  StoredCreatedEvent,
  StoredReassignment,
  StoredTopologyTransaction,
  StoredTransaction,
  StoredUnassignedEvent,
} from '../ledger/updates';
import { compileEventFormat, storedTemplateKey, type CompiledEventFormat, type Match } from './event-filter';
import type { UpdateFormat } from './format';
import type { InterfaceDirectory, InterfaceImplementation } from './interface-views';

/** One stored ledger update as the read side gets it: the header columns and the stored payload. */
export interface StoredUpdate {
  offset: number;
  updateId: string;
  kind: UpdateKind;
  synchronizerId: string;
  recordTime: string;
  payload: unknown;
}

/**
 * How a transaction is rendered: `flat` (JsTransaction, its events in a list) or `tree` (the deprecated tree forms'
 * JsTransactionTree, its events keyed by node id).
 */
export type TransactionForm = 'flat' | 'tree';

export interface CompiledUpdateFormat {
  form: TransactionForm;
  transactions: { format: CompiledEventFormat; shape: 'ACS_DELTA' | 'LEDGER_EFFECTS' } | null;
  reassignments: CompiledEventFormat | null;
  /** Parties whose participant-authorization events are wanted; null = all parties. */
  topology: { parties: ReadonlySet<string> | null } | null;
  /** What to read from the store: the parties whose index rows select candidates (null = every update) and the kinds. */
  plan: { parties: string[] | null; kinds: UpdateKind[] };
}

/** Compiles a validated UpdateFormat; interface filters match (and views come from) `interfaces`. */
export function compileUpdateFormat(
  uf: UpdateFormat,
  interfaces: InterfaceDirectory,
  form: TransactionForm = 'flat',
): CompiledUpdateFormat {
  const tx = uf.includeTransactions?.eventFormat
    ? {
        format: compileEventFormat(uf.includeTransactions.eventFormat, interfaces),
        shape:
          uf.includeTransactions.transactionShape === 'TRANSACTION_SHAPE_LEDGER_EFFECTS'
            ? ('LEDGER_EFFECTS' as const)
            : ('ACS_DELTA' as const),
      }
    : null;
  const re = uf.includeReassignments ? compileEventFormat(uf.includeReassignments, interfaces) : null;
  const topoParties = uf.includeTopologyEvents?.includeParticipantAuthorizationEvents?.parties;
  const topo = uf.includeTopologyEvents?.includeParticipantAuthorizationEvents
    ? { parties: topoParties && topoParties.length > 0 ? new Set(topoParties) : null }
    : null;
  const kinds: UpdateKind[] = [];
  let all = false;
  const parties = new Set<string>();
  const add = (ps: ReadonlySet<string> | null) => {
    if (ps === null) all = true;
    else ps.forEach((p) => parties.add(p));
  };
  if (tx) {
    kinds.push('Transaction');
    add(tx.format.parties);
  }
  if (re) {
    kinds.push('Reassignment');
    add(re.parties);
  }
  if (topo) {
    kinds.push('TopologyTransaction');
    add(topo.parties);
  }
  return {
    form,
    transactions: tx,
    reassignments: re,
    topology: topo,
    plan: { parties: all ? null : [...parties].sort(), kinds },
  };
}

/** `{"update": …}` elements of the stream (JsGetUpdatesResponse). */
export type JsGetUpdatesResponse = { update: Record<string, { value: unknown }> };

/** Renders one stored update for a format, or null when nothing of it is visible (such updates are not emitted). */
export function projectUpdate(u: StoredUpdate, f: CompiledUpdateFormat): JsGetUpdatesResponse | null {
  switch (u.kind) {
    case 'Transaction': {
      if (!f.transactions) return null;
      const t = renderTransaction(u, f.transactions.format, f.transactions.shape);
      if (!t) return null;
      if (f.form === 'flat') return { update: { Transaction: { value: t } } };
      const tree = transactionTree(t);
      return tree ? { update: { TransactionTree: { value: tree } } } : null;
    }
    case 'Reassignment': {
      if (!f.reassignments) return null;
      const r = renderReassignment(u, f.reassignments);
      return r ? { update: { Reassignment: { value: r } } } : null;
    }
    case 'TopologyTransaction': {
      if (!f.topology) return null;
      const t = renderTopology(u, f.topology.parties);
      return t ? { update: { TopologyTransaction: { value: t } } } : null;
    }
    default:
      return null;
  }
}

export function offsetCheckpoint(
  offset: number,
  synchronizerTimes: Array<{ synchronizerId: string; recordTime: string }>,
): JsGetUpdatesResponse {
  return { update: { OffsetCheckpoint: { value: { offset, synchronizerTimes } } } };
}

/**
 * A CreatedEvent as every read path renders it (transactions, assignments, the active contract set, events by contract
 * id, contract lookups): `offset` is the update that shows it, `witnessParties` the parties it is shown to.
 */
export function renderCreated(
  c: StoredCreatedEvent,
  offset: number,
  witnessParties: string[],
  blob: boolean,
  acsDelta: boolean,
  views?: readonly InterfaceImplementation[],
) {
  return {
    offset,
    nodeId: c.nodeId,
    contractId: c.contractId,
    templateId: c.templateId,
    contractKey: c.contractKey ?? null,
    contractKeyHash: c.contractKeyHash ?? '',
    createArgument: c.createArgument,
    createdEventBlob: blob ? c.createdEventBlob : '',
    interfaceViews: views ? views.map((v) => v.view(c)) : [],
    witnessParties,
    signatories: c.signatories,
    observers: c.observers,
    createdAt: c.createdAt,
    packageName: c.packageName,
    representativePackageId: c.representativePackageId,
    acsDelta,
  };
}

export type RenderedCreatedEvent = ReturnType<typeof renderCreated>;

/** A contract's stakeholders as its created event lists them. */
export const stakeholdersOf = (c: StoredCreatedEvent): string[] =>
  c.observers.length ? [...c.signatories, ...c.observers] : c.signatories;

/**
 * The created event of a contract whose stakeholders are `stakeholders` as an event format shows it (ACS_DELTA
 * visibility: a requested party must be a stakeholder), or null when the format does not select it.
 */
export function renderVisibleCreated(
  c: StoredCreatedEvent,
  offset: number,
  ef: CompiledEventFormat,
  stakeholders = stakeholdersOf(c),
  acsDelta = true,
): RenderedCreatedEvent | null {
  const m = ef.match(stakeholders, storedTemplateKey(c.templateId, c.packageName));
  return m ? renderCreated(c, offset, ef.witnesses(stakeholders), m.blob, acsDelta, m.views) : null;
}

/**
 * `implementedInterfaces` of an archived or exercised event: the interfaces of the filter that matched its template and
 * asked for views (as the reference populates it).
 */
const matchedInterfaces = (m: Exclude<Match, false>): string[] => (m.views ? m.views.map((v) => v.interfaceId) : []);

const intersects = (a: readonly string[], set: ReadonlySet<string> | null) => set === null || a.some((p) => set.has(p));

/**
 * JsTransaction for ACS_DELTA (created-and-still-in-the-delta + archived events, stakeholders decide) or LEDGER_EFFECTS
 * (created + exercised events, witnesses decide: their stakeholders or informees and those of the enclosing exercises).
 * The command id is shown only to the submitting parties. Null when no event is visible — unless `keepEmpty` (a
 * submission's own transaction, answered with `events: []`).
 */
export function renderTransaction(
  u: StoredUpdate,
  ef: CompiledEventFormat,
  shape: 'ACS_DELTA' | 'LEDGER_EFFECTS',
  opts: { keepEmpty?: boolean } = {},
) {
  const tx = u.payload as StoredTransaction;
  const events: unknown[] = [];
  for (const e of tx.events) {
    if ('CreatedEvent' in e) {
      const c = e.CreatedEvent;
      if (shape === 'ACS_DELTA' && !c.acsDelta) continue;
      const witnesses =
        shape === 'LEDGER_EFFECTS' && c.additionalWitnesses
          ? [...stakeholdersOf(c), ...c.additionalWitnesses]
          : stakeholdersOf(c);
      const rendered = renderVisibleCreated(c, u.offset, ef, witnesses, c.acsDelta);
      if (rendered) events.push({ CreatedEvent: rendered });
    } else if ('ArchivedEvent' in e) {
      if (shape !== 'ACS_DELTA') continue;
      const a = e.ArchivedEvent;
      const m = ef.match(a.stakeholders, storedTemplateKey(a.templateId, a.packageName));
      if (!m) continue;
      events.push({
        ArchivedEvent: {
          offset: u.offset,
          nodeId: a.nodeId,
          contractId: a.contractId,
          templateId: a.templateId,
          witnessParties: ef.witnesses(a.stakeholders),
          packageName: a.packageName,
          implementedInterfaces: matchedInterfaces(m),
        },
      });
    } else if ('ExercisedEvent' in e) {
      if (shape !== 'LEDGER_EFFECTS') continue;
      const x = e.ExercisedEvent;
      const witnesses = x.additionalWitnesses ? [...x.informees, ...x.additionalWitnesses] : x.informees;
      const m = ef.match(witnesses, storedTemplateKey(x.templateId, x.packageName));
      if (!m) continue;
      events.push({
        ExercisedEvent: {
          offset: u.offset,
          nodeId: x.nodeId,
          contractId: x.contractId,
          templateId: x.templateId,
          interfaceId: x.interfaceId ?? null,
          choice: x.choice,
          choiceArgument: x.choiceArgument,
          actingParties: x.actingParties,
          consuming: x.consuming,
          witnessParties: ef.witnesses(witnesses),
          lastDescendantNodeId: x.lastDescendantNodeId,
          exerciseResult: x.exerciseResult ?? null,
          packageName: x.packageName,
          implementedInterfaces: matchedInterfaces(m),
          // In the ACS delta of these parties only if one of them is a stakeholder of the consumed contract.
          acsDelta: x.acsDelta && intersects(x.stakeholders, ef.parties),
        },
      });
    }
  }
  if (events.length === 0 && !opts.keepEmpty) return null;
  const showCommand = !tx.submission || intersects(tx.submission.actAs, ef.parties);
  return {
    updateId: u.updateId,
    commandId: showCommand ? tx.commandId : '',
    workflowId: tx.workflowId,
    effectiveAt: tx.effectiveAt,
    events,
    offset: u.offset,
    synchronizerId: u.synchronizerId,
    traceContext: null,
    recordTime: u.recordTime,
    externalTransactionHash: tx.externalTransactionHash ?? null,
    paidTrafficCost: null,
    transactionHash: null,
  };
}

type RenderedTransaction = NonNullable<ReturnType<typeof renderTransaction>>;

/**
 * JsTransactionTree (the deprecated tree forms, Canton's LegacyDTOs): the rendered transaction's created and exercised
 * events keyed by node id, without the flat form's hash and traffic fields. Archived events (only an explicit ACS_DELTA
 * format yields them) have no tree event; null when nothing else is left.
 */
export function transactionTree(t: RenderedTransaction) {
  const eventsById: Record<
    string,
    { CreatedTreeEvent: { value: unknown } } | { ExercisedTreeEvent: { value: unknown } }
  > = {};
  let any = false;
  for (const e of t.events as Array<{ CreatedEvent?: { nodeId: number }; ExercisedEvent?: { nodeId: number } }>) {
    if (e.CreatedEvent) eventsById[e.CreatedEvent.nodeId] = { CreatedTreeEvent: { value: e.CreatedEvent } };
    else if (e.ExercisedEvent)
      eventsById[e.ExercisedEvent.nodeId] = { ExercisedTreeEvent: { value: e.ExercisedEvent } };
    else continue;
    any = true;
  }
  if (!any) return null;
  return {
    updateId: t.updateId,
    commandId: t.commandId,
    workflowId: t.workflowId,
    effectiveAt: t.effectiveAt,
    offset: t.offset,
    eventsById,
    synchronizerId: t.synchronizerId,
    traceContext: t.traceContext,
    recordTime: t.recordTime,
  };
}

/**
 * JsReassignment: ACS_DELTA semantics (stakeholders ∩ requested parties); unassignments wrapped in `value`. Null when no
 * event is visible — unless `keepEmpty` (the submit-and-wait result, where no format means `events: []`).
 */
export function renderReassignment(
  u: StoredUpdate,
  ef: CompiledEventFormat | null,
  opts: { keepEmpty?: boolean } = {},
) {
  const r = u.payload as StoredReassignment;
  const events: unknown[] = [];
  for (const e of ef ? r.events : []) {
    if (!ef) break;
    if ('Unassigned' in e) {
      const x: StoredUnassignedEvent = e.Unassigned;
      if (!ef.match(x.stakeholders, storedTemplateKey(x.templateId, x.packageName))) continue;
      events.push({
        JsUnassignedEvent: {
          value: {
            reassignmentId: x.reassignmentId,
            contractId: x.contractId,
            templateId: x.templateId,
            source: x.source,
            target: x.target,
            submitter: x.submitter,
            reassignmentCounter: x.reassignmentCounter,
            assignmentExclusivity: x.assignmentExclusivity ?? null,
            witnessParties: ef.witnesses(x.stakeholders),
            packageName: x.packageName,
            offset: u.offset,
            nodeId: x.nodeId,
          },
        },
      });
    } else {
      const x: StoredAssignedEvent = e.Assigned;
      const createdEvent = renderVisibleCreated(x.createdEvent, u.offset, ef, x.stakeholders);
      if (!createdEvent) continue;
      events.push({
        JsAssignmentEvent: {
          source: x.source,
          target: x.target,
          reassignmentId: x.reassignmentId,
          submitter: x.submitter,
          reassignmentCounter: x.reassignmentCounter,
          createdEvent,
        },
      });
    }
  }
  if (events.length === 0 && !opts.keepEmpty) return null;
  const showCommand = !ef || !r.submission || intersects([r.submission.submitter], ef.parties);
  return {
    updateId: u.updateId,
    commandId: showCommand ? r.commandId : '',
    workflowId: r.workflowId,
    offset: u.offset,
    events,
    traceContext: null,
    recordTime: u.recordTime,
    synchronizerId: u.synchronizerId,
    paidTrafficCost: null,
  };
}

/** JsTopologyTransaction with the participant-authorization events of the wanted parties (null = all). */
export function renderTopology(u: StoredUpdate, parties: ReadonlySet<string> | null) {
  const t = u.payload as StoredTopologyTransaction;
  const events: unknown[] = [];
  for (const e of t.events) {
    const [name, value] = Object.entries(e).find(([, v]) => v) ?? [];
    if (!name || !value) continue;
    if (parties && !parties.has((value as { partyId: string }).partyId)) continue;
    events.push({ event: { [name]: { value } } });
  }
  if (events.length === 0) return null;
  return {
    updateId: u.updateId,
    offset: u.offset,
    synchronizerId: u.synchronizerId,
    recordTime: u.recordTime,
    events,
    traceContext: null,
  };
}
