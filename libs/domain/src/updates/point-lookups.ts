import { createHash } from 'node:crypto';
import { ErrorCategories, invalidArgument, invalidField, LedgerError, missingField, notFound } from '../errors';
import {
  resolveTransactionByIdFormat,
  validateUpdateFormat,
  type TransactionFormat,
  type UpdateFormat,
} from './format';
import { negativeOffset, nonPositiveOffset } from './range';

/**
 * Point lookups of one update (Canton's UpdateService GetUpdateById / GetUpdateByOffset, and the deprecated
 * transaction-by-offset of the JSON layer) and the paged updates read (GetUpdatesPage).
 */

export interface GetUpdateByIdRequest {
  updateId?: string;
  updateFormat?: UpdateFormat | null;
}

export interface GetUpdateByOffsetRequest {
  offset?: number;
  updateFormat?: UpdateFormat | null;
}

export interface GetUpdateByHashRequest {
  /** The bytes of the hash (base64 in JSON). */
  transactionHash?: Uint8Array;
  updateFormat?: UpdateFormat | null;
}

export interface GetTransactionByOffsetRequest {
  offset?: number;
  requestingParties?: string[] | null;
  transactionFormat?: TransactionFormat | null;
}

export const updateNotFoundAtOffset = (offset: number) =>
  notFound('UPDATE_NOT_FOUND', 'Update not found, or not visible.', [['OFFSET', String(offset)]]);

export const updateNotFoundByHash = (hash: string) =>
  notFound('UPDATE_NOT_FOUND', 'Update not found, or not visible.', [['TRANSACTION_HASH', hash]]);

/**
 * The transaction hash of update-by-hash: non-empty (MISSING_FIELD transaction_hash), a SHA-256 hash as a multihash
 * (`0x12 0x20` + 32 bytes, what a transaction's `externalTransactionHash` shows in hex) or as the raw 32 bytes (what
 * prepare answers as `preparedTransactionHash`). Returns the multihash in hex, as stored.
 */
export function validateTransactionHash(hash: Uint8Array | undefined): string {
  const b = Buffer.from(hash ?? []);
  if (b.length === 0) throw missingField('transaction_hash');
  if (b.length === 32) return '1220' + b.toString('hex');
  if (b.length === 34 && b[0] === 0x12 && b[1] === 0x20) return b.toString('hex');
  throw invalidField(
    'transaction_hash',
    `expected a SHA-256 hash (32 bytes) or its multihash (34 bytes), got ${b.length} bytes`,
  );
}

/** `offset > 0`, else NON_POSITIVE_OFFSET (ParticipantOffsetValidator); not compared with the ledger end. */
export function validateLookupOffset(offset: number | undefined): number {
  const o = offset ?? 0;
  if (o <= 0) throw nonPositiveOffset(o, 'offset', 'the offset has to be a positive integer (>0)');
  return o;
}

/**
 * A lookup's update format: present (MISSING_FIELD update_format) and valid. A format that asks for nothing validates,
 * but finds nothing: null.
 */
export function validateLookupFormat(uf: UpdateFormat | null | undefined): UpdateFormat | null {
  if (!uf) throw missingField('update_format');
  if (
    !uf.includeTransactions &&
    !uf.includeReassignments &&
    !uf.includeTopologyEvents?.includeParticipantAuthorizationEvents
  )
    return null;
  validateUpdateFormat(uf);
  return uf;
}

/** transaction-by-offset: the requestingParties/transactionFormat matrix of transaction-by-id. */
export const resolveTransactionByOffsetFormat = (req: GetTransactionByOffsetRequest): UpdateFormat =>
  resolveTransactionByIdFormat({ requestingParties: req.requestingParties, transactionFormat: req.transactionFormat });

export interface GetUpdatesPageRequest {
  beginOffsetExclusive?: number | null;
  endOffsetInclusive?: number | null;
  maxPageSize?: number | null;
  updateFormat?: UpdateFormat | null;
  descendingOrder?: boolean;
  pageToken?: string | null;
}

export const DEFAULT_UPDATES_PAGE_SIZE = 100;
export const MAX_UPDATES_PAGE_SIZE = 2000;

export const invalidUpdatesPageToken = (reason: string) =>
  new LedgerError(
    'INVALID_UPDATES_PAGE_TOKEN',
    ErrorCategories.InvalidIndependentOfSystemState,
    `The updates page token is invalid: ${reason}`,
  );

interface PageTokenBody {
  v: 1;
  /** ascending: the next page starts after this offset; descending: the next page ends at it (inclusive). */
  at: number;
  desc: boolean;
  c: string;
}

function requestChecksum(req: GetUpdatesPageRequest, participant: string): string {
  const bound = JSON.stringify([
    req.beginOffsetExclusive ?? null,
    req.endOffsetInclusive ?? null,
    req.maxPageSize ?? null,
    req.updateFormat ?? null,
    req.descendingOrder ?? false,
  ]);
  return createHash('sha256').update(bound).update('\u0000').update(participant).digest('base64url').slice(0, 22);
}

export function updatesPageToken(req: GetUpdatesPageRequest, participant: string, at: number): string {
  const body: PageTokenBody = { v: 1, at, desc: req.descendingOrder ?? false, c: requestChecksum(req, participant) };
  return Buffer.from(JSON.stringify(body)).toString('base64');
}

/** What one page reads: `(begin, end]`, in which direction, how many. */
export interface UpdatesPagePlan {
  begin: number;
  end: number;
  descending: boolean;
  pageSize: number;
  format: UpdateFormat;
}

/**
 * The checks of GetUpdatesPage (UpdateServiceRequestValidator) in their order: the page token, the end and begin
 * offsets, the page size (default 100, at most 2000), the end against the ledger end, begin ≤ end, the format, and the
 * token's direction. Then the range of this page: ascending from the token's offset (else the begin, else the pruning
 * offset) up to the end (else the ledger end); descending down from the token's offset (else the end).
 */
export function planUpdatesPage(
  req: GetUpdatesPageRequest,
  ledger: { ledgerEnd: number; prunedUpTo: number },
  participant: string,
): UpdatesPagePlan {
  let token: PageTokenBody | null = null;
  if (req.pageToken) {
    try {
      token = JSON.parse(Buffer.from(req.pageToken, 'base64').toString('utf8')) as PageTokenBody;
    } catch {
      token = null;
    }
    if (
      !token ||
      token.v !== 1 ||
      !Number.isSafeInteger(token.at) ||
      typeof token.desc !== 'boolean' ||
      typeof token.c !== 'string'
    ) {
      throw invalidField('page_token', 'Unable to decode the page token');
    }
    if (token.c !== requestChecksum(req, participant))
      throw invalidUpdatesPageToken('it was issued for a request with other parameters');
  }
  const end = req.endOffsetInclusive ?? null;
  const begin = req.beginOffsetExclusive ?? null;
  if (end !== null && end <= 0)
    throw nonPositiveOffset(end, 'endOffsetInclusive', 'the offset has to be a positive integer (>0)');
  if (begin !== null && begin < 0) throw negativeOffset(begin, 'beginOffsetExclusive');
  const size = req.maxPageSize ?? DEFAULT_UPDATES_PAGE_SIZE;
  if (size <= 0) throw invalidArgument(`Requested page size must be positive, but got ${size}`);
  if (size > MAX_UPDATES_PAGE_SIZE)
    throw invalidArgument(`Requested page size must not exceed ${MAX_UPDATES_PAGE_SIZE}, but got ${size}`);
  if (end !== null && end > ledger.ledgerEnd)
    throw new LedgerError(
      'OFFSET_AFTER_LEDGER_END',
      ErrorCategories.InvalidGivenCurrentSystemStateSeekAfterEnd,
      `endOffsetInclusive offset (${end}) is after ledger end (${ledger.ledgerEnd})`,
    );
  if (begin !== null && end !== null && begin > end)
    throw invalidArgument('beginOffsetExclusive is after endOffsetInclusive');
  const format = req.updateFormat;
  if (!format) throw missingField('update_format');
  validateUpdateFormat(format);
  const descending = req.descendingOrder ?? false;
  if (token && token.desc !== descending) throw invalidUpdatesPageToken('it was issued for the other order');
  const lowest = Math.max(begin ?? ledger.prunedUpTo, 0);
  if (!descending)
    return { begin: token ? token.at : lowest, end: end ?? ledger.ledgerEnd, descending, pageSize: size, format };
  return { begin: lowest, end: token ? token.at : (end ?? ledger.ledgerEnd), descending, pageSize: size, format };
}
