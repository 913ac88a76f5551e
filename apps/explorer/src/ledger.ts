/**
 * The JSON Ledger API shapes the explorer reads (Canton 3.5's JSON encoding) and the request formats it sends. Pure
 * data work: no DOM, unit-tested without a browser.
 */

export type Json = Record<string, unknown>;

export interface CreatedEvent {
  offset: number;
  nodeId: number;
  contractId: string;
  templateId: string;
  packageName: string;
  createArgument: unknown;
  contractKey?: unknown;
  contractKeyHash?: string;
  signatories: string[];
  observers: string[];
  witnessParties: string[];
  createdAt: string;
}

export interface ArchivedEvent {
  offset: number;
  nodeId: number;
  contractId: string;
  templateId: string;
  packageName: string;
  witnessParties: string[];
}

export interface ExercisedEvent {
  offset: number;
  nodeId: number;
  contractId: string;
  templateId: string;
  packageName: string;
  choice: string;
  choiceArgument: unknown;
  exerciseResult: unknown;
  actingParties: string[];
  consuming: boolean;
  witnessParties: string[];
}

export type TransactionEvent =
  { CreatedEvent: CreatedEvent } | { ArchivedEvent: ArchivedEvent } | { ExercisedEvent: ExercisedEvent };

export interface Transaction {
  updateId: string;
  commandId?: string;
  workflowId?: string;
  effectiveAt: string;
  offset: number;
  synchronizerId: string;
  recordTime: string;
  events: TransactionEvent[];
  externalTransactionHash?: string | null;
  transactionHash?: string | null;
}

export interface Reassignment {
  updateId: string;
  commandId?: string;
  offset: number;
  synchronizerId: string;
  recordTime: string;
  events: Array<
    | { JsAssignmentEvent: Json & { createdEvent: CreatedEvent; source: string; target: string } }
    | {
        JsUnassignedEvent: {
          value: Json & { contractId: string; source: string; target: string; witnessParties: string[] };
        };
      }
  >;
}

export interface TopologyTransaction {
  updateId: string;
  offset: number;
  synchronizerId: string;
  recordTime: string;
  events: Array<{ event: Record<string, { value: Json & { partyId: string; participantId: string } }> }>;
}

export type UpdateKind = 'Transaction' | 'Reassignment' | 'TopologyTransaction';

/** One update as the explorer keeps it: its kind, its value, and what a list row shows of it. */
export interface LedgerUpdate {
  kind: UpdateKind;
  value: Transaction | Reassignment | TopologyTransaction;
  offset: number;
  updateId: string;
  recordTime: string;
}

/** A JsGetUpdatesResponse as an update (null for an offset checkpoint or anything unknown). */
export function updateOf(message: unknown): LedgerUpdate | null {
  const update = (message as { update?: Record<string, { value?: Json }> } | null)?.update;
  if (!update) return null;
  for (const kind of ['Transaction', 'Reassignment', 'TopologyTransaction'] as const) {
    const value = update[kind]?.value as LedgerUpdate['value'] | undefined;
    if (value) return { kind, value, offset: value.offset, updateId: value.updateId, recordTime: value.recordTime };
  }
  return null;
}

/** The offset of an OffsetCheckpoint message (the ledger end has moved past updates this filter does not see). */
export function checkpointOf(message: unknown): number | null {
  const value = (message as { update?: { OffsetCheckpoint?: { value?: { offset?: unknown } } } } | null)?.update
    ?.OffsetCheckpoint?.value;
  return typeof value?.offset === 'number' ? value.offset : null;
}

const WILDCARD = {
  cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: false } } } }],
};

/** Whose updates a request asks for: every party (`any`) or these ones. */
export type Readers = { any: true } | { any: false; parties: string[] };

export function eventFormat(readers: Readers): Json {
  if (readers.any) return { filtersForAnyParty: WILDCARD, verbose: true };
  return { filtersByParty: Object.fromEntries(readers.parties.map((p) => [p, WILDCARD])), verbose: true };
}

/** Transactions, reassignments and topology events of `readers`, transactions in `shape`. */
export function updateFormat(
  readers: Readers,
  shape: 'TRANSACTION_SHAPE_ACS_DELTA' | 'TRANSACTION_SHAPE_LEDGER_EFFECTS' = 'TRANSACTION_SHAPE_ACS_DELTA',
): Json {
  const ef = eventFormat(readers);
  return {
    includeTransactions: { eventFormat: ef, transactionShape: shape },
    includeReassignments: ef,
    includeTopologyEvents: { includeParticipantAuthorizationEvents: readers.any ? {} : { parties: readers.parties } },
  };
}

/** A user's rights as the JSON API lists them (`{kind: {CanReadAs: {value: {party}}}}`). */
export type Right = { kind: Record<string, { value?: { party?: string } }> };

export interface Access {
  admin: boolean;
  identityProviderAdmin: boolean;
  /** May read the updates of every party (CanReadAsAnyParty or CanActAsAnyParty; being an admin is not enough). */
  readAny: boolean;
  /** The parties the user may read as (CanReadAs, CanActAs). */
  parties: string[];
}

export function accessOf(rights: Right[]): Access {
  const kinds = rights.map((r) => Object.keys(r.kind)[0]);
  const parties = new Set<string>();
  for (const r of rights) {
    const [kind, body] = Object.entries(r.kind)[0] ?? [];
    if ((kind === 'CanReadAs' || kind === 'CanActAs') && body?.value?.party) parties.add(body.value.party);
  }
  return {
    admin: kinds.includes('ParticipantAdmin'),
    identityProviderAdmin: kinds.includes('IdentityProviderAdmin'),
    readAny: kinds.includes('CanReadAsAnyParty') || kinds.includes('CanActAsAnyParty'),
    parties: [...parties].sort(),
  };
}

/** The parties whose commands a user's completions can show (CanActAs, CanExecuteAs). */
export function actingParties(rights: Right[]): string[] {
  const parties = new Set<string>();
  for (const r of rights) {
    const [kind, body] = Object.entries(r.kind)[0] ?? [];
    if ((kind === 'CanActAs' || kind === 'CanExecuteAs') && body?.value?.party) parties.add(body.value.party);
  }
  return [...parties].sort();
}

/** Whose updates the live view asks for: one party when filtering, else everything the user can read. */
export function readersFor(access: Access, party?: string): Readers | null {
  if (party) return { any: false, parties: [party] };
  if (access.readAny) return { any: true };
  return access.parties.length ? { any: false, parties: access.parties } : null;
}

/** `pkg:Module.Name:Entity` → `Module.Name:Entity` (a package id or `#name` prefix says little in a list). */
export function shortTemplate(templateId: string): string {
  const i = templateId.indexOf(':');
  return i === -1 ? templateId : templateId.slice(i + 1);
}

/** `hint::1220abcd…` → `hint::1220abcd…` shortened to the hint and the fingerprint's start. */
export function shortParty(party: string): string {
  const i = party.indexOf('::');
  return i === -1 || party.length < i + 14 ? party : `${party.slice(0, i + 2)}${party.slice(i + 2, i + 10)}…`;
}

export function shortId(id: string, keep = 12): string {
  return id.length <= keep + 1 ? id : `${id.slice(0, keep)}…`;
}

export interface UpdateSummary {
  /** e.g. "2 created, 1 archived" or "1 assigned". */
  what: string;
  templates: string[];
  parties: string[];
}

/** What a list row says about an update: its events counted by kind, the templates and the parties they touch. */
export function summarize(u: LedgerUpdate): UpdateSummary {
  const counts = new Map<string, number>();
  const templates = new Set<string>();
  const parties = new Set<string>();
  const count = (k: string) => counts.set(k, (counts.get(k) ?? 0) + 1);
  if (u.kind === 'Transaction') {
    for (const e of (u.value as Transaction).events) {
      if ('CreatedEvent' in e) {
        count('created');
        templates.add(shortTemplate(e.CreatedEvent.templateId));
        for (const p of [...e.CreatedEvent.signatories, ...e.CreatedEvent.observers]) parties.add(p);
      } else if ('ArchivedEvent' in e) {
        count('archived');
        templates.add(shortTemplate(e.ArchivedEvent.templateId));
        for (const p of e.ArchivedEvent.witnessParties) parties.add(p);
      } else if ('ExercisedEvent' in e) {
        count(e.ExercisedEvent.consuming ? 'consumed' : 'exercised');
        templates.add(shortTemplate(e.ExercisedEvent.templateId));
        for (const p of e.ExercisedEvent.actingParties) parties.add(p);
      }
    }
  } else if (u.kind === 'Reassignment') {
    for (const e of (u.value as Reassignment).events) {
      if ('JsAssignmentEvent' in e) {
        count('assigned');
        templates.add(shortTemplate(e.JsAssignmentEvent.createdEvent.templateId));
        for (const p of e.JsAssignmentEvent.createdEvent.witnessParties) parties.add(p);
      } else {
        count('unassigned');
        templates.add(shortTemplate(String(e.JsUnassignedEvent.value.templateId ?? '')));
        for (const p of e.JsUnassignedEvent.value.witnessParties) parties.add(p);
      }
    }
  } else {
    for (const e of (u.value as TopologyTransaction).events) {
      for (const [name, body] of Object.entries(e.event)) {
        count(
          name
            .replace(/^Participant/, '')
            .replace(/([a-z])([A-Z])/g, '$1 $2')
            .toLowerCase(),
        );
        if (body?.value?.partyId) parties.add(body.value.partyId);
      }
    }
  }
  return {
    what: [...counts].map(([k, n]) => `${n} ${k}`).join(', ') || 'no events',
    templates: [...templates].filter(Boolean),
    parties: [...parties],
  };
}
