import { createHash } from 'node:crypto';
import {
  ErrorCategories,
  failedPrecondition,
  invalidArgument,
  invalidField,
  LedgerError,
  missingField,
} from '../errors';
import type { StoredCreatedEvent } from '../ledger/updates';
import { compileEventFormat, type CompiledEventFormat } from '../updates/event-filter';
import type { InterfaceDirectory } from '../updates/interface-views';
import { validateEventFormat, type EventFormat, type LegacyFilter } from '../updates/format';
import { renderVisibleCreated, type RenderedCreatedEvent } from '../updates/projection';
import { negativeOffset } from '../updates/range';

/**
 * The active contract set (Canton's StateService as its JSON layer serves it: JsStateService, ApiStateService,
 * ACSReader): the request model, its checks in the reference's order, the continuation and page tokens, and the
 * rendering of each entry.
 */

export interface GetActiveContractsRequest {
  activeAtOffset?: number;
  eventFormat?: EventFormat | null;
  /** Legacy (TransactionFilter) form, with `verbose`. */
  filter?: LegacyFilter | null;
  verbose?: boolean;
  streamContinuationToken?: string | null;
}

export interface GetActiveContractsPageRequest {
  /** Absent: the ledger end at the time of the request. */
  activeAtOffset?: number | null;
  eventFormat?: EventFormat | null;
  maxPageSize?: number | null;
  pageToken?: string | null;
}

const USE_EITHER = 'Please use either backwards compatible arguments (filter and verbose) or event_format';

/** The legacy `filter`/`verbose` versus `eventFormat` matrix of the JSON layer (checked before authorization). */
export function resolveActiveContractsFormat(req: GetActiveContractsRequest): EventFormat {
  const format = req.eventFormat ?? null;
  const filter = req.filter ?? null;
  if (format && filter) throw invalidArgument(`Both event_format and filter are set. ${USE_EITHER}, but not both.`);
  if (format && req.verbose)
    throw invalidArgument(`Both event_format and verbose are set. ${USE_EITHER}, but not both.`);
  if (format) return format;
  if (!filter) throw invalidArgument(`Either filter/verbose or event_format is required. ${USE_EITHER}.`);
  return {
    filtersByParty: filter.filtersByParty ?? {},
    filtersForAnyParty: filter.filtersForAnyParty ?? null,
    verbose: req.verbose ?? false,
  };
}

/** Where a snapshot read stands: after the activation (offset, node), then at the n-th incomplete reassignment entry. */
export type AcsPosition = { phase: 'active'; offset: number; nodeId: number } | { phase: 'incomplete'; index: number };

export const ACS_START: AcsPosition = { phase: 'active', offset: 0, nodeId: -1 };

const C = ErrorCategories;

export const invalidContinuationToken = (reason: string) =>
  new LedgerError(
    'INVALID_CONTINUATION_TOKEN',
    C.InvalidIndependentOfSystemState,
    `The continuation token is invalid: ${reason}`,
  );

export const invalidAcsPageToken = (reason: string) =>
  new LedgerError(
    'INVALID_ACS_PAGE_TOKEN',
    C.InvalidIndependentOfSystemState,
    `The active contracts page token is invalid: ${reason}`,
  );

export const acsOffsetAfterLedgerEnd = (offset: number, ledgerEnd: number) =>
  new LedgerError(
    'OFFSET_AFTER_LEDGER_END',
    C.InvalidGivenCurrentSystemStateSeekAfterEnd,
    `active_at_offset offset (${offset}) is after ledger end (${ledgerEnd})`,
  );

export const acsPrunedDataAccessed = (offset: number, pruned: number) =>
  failedPrecondition(
    'PARTICIPANT_PRUNED_DATA_ACCESSED',
    `Active contracts request at offset ${offset} precedes pruned offset ${pruned}`,
    {
      context: { earliest_offset: String(pruned) },
    },
  );

/** Checksum of what a token is bound to: the event format (and for pages the snapshot offset) and the participant. */
function checksum(format: EventFormat, participant: string, extra = ''): string {
  return createHash('sha256')
    .update(JSON.stringify(canonical(format)))
    .update('\u0000')
    .update(participant)
    .update('\u0000')
    .update(extra)
    .digest('base64url')
    .slice(0, 22);
}

/** The format with its keys in a fixed order, so that equal formats give equal checksums. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined && x !== null) out[k] = canonical(x);
    }
    return out;
  }
  return v;
}

interface TokenBody {
  v: 1;
  p: AcsPosition;
  c: string;
  /** Page tokens: the snapshot offset. */
  at?: number;
}

function encodeToken(body: TokenBody): string {
  return Buffer.from(JSON.stringify(body)).toString('base64');
}

function decodeToken(token: string, field: string): TokenBody {
  let body: TokenBody | null = null;
  try {
    if (/^[A-Za-z0-9+/_-]*={0,2}$/.test(token))
      body = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as TokenBody;
  } catch {
    body = null;
  }
  const p = body?.p;
  const validPosition =
    p &&
    typeof p === 'object' &&
    ((p.phase === 'active' && Number.isSafeInteger(p.offset) && Number.isSafeInteger(p.nodeId)) ||
      (p.phase === 'incomplete' && Number.isSafeInteger(p.index)));
  if (!body || body.v !== 1 || !validPosition || typeof body.c !== 'string')
    throw invalidField(field, 'Unable to decode the token');
  return body;
}

/**
 * streamContinuationTokens of one stream: each resumes after the element that carried it (same event format, same
 * participant). The checksum is computed once per stream.
 */
export function continuationTokens(format: EventFormat, participant: string): (position: AcsPosition) => string {
  const c = checksum(format, participant);
  return (p) => encodeToken({ v: 1, p, c });
}

export function pageToken(
  position: AcsPosition,
  format: EventFormat,
  participant: string,
  activeAtOffset: number,
): string {
  return encodeToken({
    v: 1,
    p: position,
    c: checksum(format, participant, String(activeAtOffset)),
    at: activeAtOffset,
  });
}

/**
 * The checks of a streaming ACS request after authorization, in the reference's order (ApiStateService,
 * IndexServiceImpl, ACSReader): the event format, the continuation token, a negative offset, an offset beyond the
 * ledger end, then pruning (an ACS at the pruning offset is served; offset 0 is the empty snapshot).
 */
export function validateActiveContractsRequest(
  req: GetActiveContractsRequest,
  format: EventFormat,
  ledger: { ledgerEnd: number; prunedUpTo: number },
  participant: string,
): { activeAtOffset: number; from: AcsPosition; empty: boolean } {
  validateEventFormat(format);
  let from = ACS_START;
  if (req.streamContinuationToken) {
    const t = decodeToken(req.streamContinuationToken, 'stream_continuation_token');
    if (t.c !== checksum(format, participant))
      throw invalidContinuationToken('it was issued for another event format or participant');
    from = t.p;
  }
  const at = req.activeAtOffset ?? 0;
  return { activeAtOffset: at, from, empty: checkSnapshotOffset(at, ledger) };
}

/** NEGATIVE_OFFSET, OFFSET_AFTER_LEDGER_END, then pruning; true for the empty snapshot at offset 0. */
function checkSnapshotOffset(at: number, ledger: { ledgerEnd: number; prunedUpTo: number }): boolean {
  if (at < 0) throw negativeOffset(at, 'active_at_offset');
  if (at > ledger.ledgerEnd) throw acsOffsetAfterLedgerEnd(at, ledger.ledgerEnd);
  if (at === 0) return true;
  if (ledger.prunedUpTo > at) throw acsPrunedDataAccessed(at, ledger.prunedUpTo);
  return false;
}

export const DEFAULT_ACS_PAGE_SIZE = 2000;
export const MAX_ACS_PAGE_SIZE = 10000;

/**
 * The checks of GetActiveContractsPage (ApiStateService): the event format, the page size (default 2000, at most
 * 10000), the page token (bound to the format and the snapshot offset; the page size may change), then the offset
 * (absent: the ledger end; with a token: the token's) as for the stream.
 */
export function validateActiveContractsPageRequest(
  req: GetActiveContractsPageRequest,
  ledger: { ledgerEnd: number; prunedUpTo: number },
  participant: string,
): { format: EventFormat; activeAtOffset: number; from: AcsPosition; pageSize: number; empty: boolean } {
  const format = req.eventFormat;
  if (!format) throw missingField('event_format');
  validateEventFormat(format);
  const size = req.maxPageSize ?? DEFAULT_ACS_PAGE_SIZE;
  if (size <= 0) throw invalidArgument(`Requested page size must be positive, but got ${size}`);
  if (size > MAX_ACS_PAGE_SIZE)
    throw invalidArgument(`Requested page size must not exceed ${MAX_ACS_PAGE_SIZE}, but got ${size}`);
  let from = ACS_START;
  let at = req.activeAtOffset ?? null;
  if (req.pageToken) {
    const t = decodeToken(req.pageToken, 'page_token');
    if (t.at === undefined || !Number.isSafeInteger(t.at)) throw invalidAcsPageToken('it is not a page token');
    if (at !== null && at !== t.at) throw invalidAcsPageToken(`it was issued for offset ${t.at}, not ${at}`);
    if (t.c !== checksum(format, participant, String(t.at)))
      throw invalidAcsPageToken('it was issued for another event format or participant');
    at = t.at;
    from = t.p;
  }
  if (at !== null && at < 0) throw negativeOffset(at, 'active_at_offset');
  const activeAtOffset = at ?? ledger.ledgerEnd;
  return { format, activeAtOffset, from, pageSize: size, empty: checkSnapshotOffset(activeAtOffset, ledger) };
}

/** One activation as the store reads it: where and when the contract became active, and its created event. */
export interface StoredActivation {
  offset: number;
  nodeId: number;
  contractId: string;
  synchronizerId: string;
  reassignmentCounter: number;
  workflowId: string;
  createdEvent: StoredCreatedEvent;
}

/** An unassignment not assigned at the snapshot offset, per contract (JsIncompleteUnassigned). */
export interface StoredIncompleteUnassignment {
  reassignmentId: string;
  source: string;
  target: string;
  submitter: string;
  unassignedOffset: number;
  assignmentExclusivity: string | null;
  workflowId: string;
  nodeId: number;
  reassignmentCounter: number;
  stakeholders: string[];
  createdEvent: StoredCreatedEvent;
  /** The contract's last activation before the unassignment (offset, node id). */
  activatedAt: { offset: number; nodeId: number };
}

export type JsContractEntry =
  | { JsActiveContract: { createdEvent: RenderedCreatedEvent; synchronizerId: string; reassignmentCounter: number } }
  | { JsIncompleteUnassigned: { createdEvent: RenderedCreatedEvent; unassignedEvent: Record<string, unknown> } };

export interface JsGetActiveContractsResponse {
  workflowId: string;
  contractEntry: JsContractEntry;
  streamContinuationToken: string;
}

/** The JsActiveContract entry of an activation, or null when the format does not select it. */
export function renderActiveContract(
  a: StoredActivation,
  ef: CompiledEventFormat,
): Omit<JsGetActiveContractsResponse, 'streamContinuationToken'> | null {
  const createdEvent = renderVisibleCreated(
    a.nodeId === a.createdEvent.nodeId ? a.createdEvent : { ...a.createdEvent, nodeId: a.nodeId },
    a.offset,
    ef,
  );
  if (!createdEvent) return null;
  return {
    workflowId: a.workflowId,
    contractEntry: {
      JsActiveContract: { createdEvent, synchronizerId: a.synchronizerId, reassignmentCounter: a.reassignmentCounter },
    },
  };
}

/** The JsIncompleteUnassigned entry of an unassigned contract, or null when the format does not select it. */
export function renderIncompleteUnassigned(
  u: StoredIncompleteUnassignment,
  ef: CompiledEventFormat,
): Omit<JsGetActiveContractsResponse, 'streamContinuationToken'> | null {
  const c = u.createdEvent;
  const createdEvent = renderVisibleCreated(
    { ...c, nodeId: u.activatedAt.nodeId },
    u.activatedAt.offset,
    ef,
    u.stakeholders,
  );
  if (!createdEvent) return null;
  return {
    workflowId: u.workflowId,
    contractEntry: {
      JsIncompleteUnassigned: {
        createdEvent,
        unassignedEvent: {
          reassignmentId: u.reassignmentId,
          contractId: c.contractId,
          templateId: c.templateId,
          source: u.source,
          target: u.target,
          submitter: u.submitter,
          reassignmentCounter: u.reassignmentCounter,
          assignmentExclusivity: u.assignmentExclusivity,
          witnessParties: ef.witnesses(u.stakeholders),
          packageName: c.packageName,
          offset: u.unassignedOffset,
          nodeId: u.nodeId,
        },
      },
    },
  };
}

/** The compiled format of an ACS read and the parties whose activations to read (null: every activation). */
export function compileAcsFormat(
  format: EventFormat,
  interfaces: InterfaceDirectory,
): { ef: CompiledEventFormat; parties: string[] | null } {
  const ef = compileEventFormat(format, interfaces);
  return { ef, parties: ef.parties ? [...ef.parties].sort() : null };
}
