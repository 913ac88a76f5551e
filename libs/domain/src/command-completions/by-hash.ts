import { readsAsAnyParty, type Claims } from '../auth/rights';
import { invalidArgument, notFound, permissionDenied } from '../errors';
import type { Completion } from './completion';

/**
 * GetCompletionByHash (Canton 3.5.10: ApiCommandCompletionService.getCompletionByHash, CommandCompletionServiceAuthorization,
 * CompletionStorageBackendTemplate.*CompletionByHash): the accepted completion and the latest rejected ones of an
 * externally signed transaction, found by its transaction hash, as the caller's parties see them.
 */

/** Canton's IndexServiceConfig.DefaultMaxRejectedCompletionsByHash. */
export const MAX_REJECTED_COMPLETIONS_BY_HASH = 10;

/**
 * Authorization (MatchReadAsParties): a reader of any party sees every completion (null); anyone else sees those with an
 * actAs party among the parties it may read or act as, and needs at least one such party.
 */
export function completionByHashParties(claims: Claims): ReadonlySet<string> | null {
  if (readsAsAnyParty(claims)) return null;
  const parties = new Set(
    claims.rights.flatMap((r) => (r.kind === 'CanActAs' || r.kind === 'CanReadAs' ? [r.party] : [])),
  );
  if (parties.size === 0)
    throw permissionDenied(
      'Claims do not authorize reading data: neither a read-as-any-party wildcard nor any party-specific read/act claim is present',
    );
  return parties;
}

/**
 * The hash to look up, as the completions store it (the multihash, base64): empty → INVALID_ARGUMENT; the raw 32-byte
 * SHA-256 (prepare's `preparedTransactionHash`) or its multihash; anything else matches no completion (null).
 */
export function completionLookupHash(hash: Uint8Array | undefined): string | null {
  const b = Buffer.from(hash ?? []);
  if (b.length === 0) throw invalidArgument('Missing field: transaction_hash');
  if (b.length === 32) return Buffer.concat([Buffer.from([0x12, 0x20]), b]).toString('base64');
  if (b.length === 34 && b[0] === 0x12 && b[1] === 0x20) return b.toString('base64');
  return null;
}

/** 404 COMPLETION_NOT_FOUND, naming the hash (hex) as given. */
export const completionNotFound = (hash: Uint8Array) =>
  notFound('COMPLETION_NOT_FOUND', 'Completion not found, or not visible.', [
    ['TRANSACTION_HASH', Buffer.from(hash).toString('hex')],
  ]);

export interface CompletionByHashResponse {
  acceptedCompletion: Completion | null;
  lastRejectedCompletions: Completion[];
}

/** The answer, with `actAs` cut down to the caller's parties; COMPLETION_NOT_FOUND when nothing is visible. */
export function completionByHashResponse(
  hash: Uint8Array,
  found: { accepted: Completion | null; rejected: Completion[] },
  parties: ReadonlySet<string> | null,
): CompletionByHashResponse {
  const seen = (c: Completion): Completion | null => {
    if (!parties) return c;
    const actAs = c.actAs.filter((p) => parties.has(p));
    return actAs.length ? { ...c, actAs } : null;
  };
  const accepted = found.accepted && seen(found.accepted);
  const rejected = found.rejected.map(seen).filter((c): c is Completion => c !== null);
  if (!accepted && rejected.length === 0) throw completionNotFound(hash);
  return { acceptedCompletion: accepted, lastRejectedCompletions: rejected };
}
