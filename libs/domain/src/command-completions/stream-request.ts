import { canReadAs, readsAsAnyParty, type Claims } from '../auth/rights';
import { matchUserId } from '../auth/requirements';
import { invalidArgument, missingField, permissionDenied } from '../errors';
import { negativeOffset, offsetAfterLedgerEnd, prunedDataAccessed } from '../updates/range';
import { validateUserId } from '../users/user-rules';

/** CompletionStreamRequest (every key optional at decode time). */
export interface CompletionStreamRequest {
  userId?: string;
  parties?: string[];
  beginExclusive?: number;
}

export interface ValidCompletionStream {
  userId: string;
  parties: ReadonlySet<string>;
  beginExclusive: number;
}

/**
 * Canton's CommandCompletionServiceAuthorization: MatchUserId — except that a caller who may read as any party may name
 * any user — and ReadAs for every requested party. Returns the effective user id.
 */
export function authorizeCompletionStream(claims: Claims, req: CompletionStreamRequest): string {
  const userId = req.userId && readsAsAnyParty(claims) ? req.userId : matchUserId(claims, req.userId);
  for (const p of req.parties ?? []) if (!canReadAs(claims, p)) throw permissionDenied(`Claims do not authorize to read data for party '${p}'`);
  return userId;
}

const PARTY = /^[a-zA-Z0-9:\-_ ]{1,255}$/;

/** Canton's CompletionServiceRequestValidator, in its order, against the ledger end and pruning offset read now. */
export function validateCompletionStream(req: CompletionStreamRequest, userId: string, ledger: { ledgerEnd: number; prunedUpTo: number }): ValidCompletionStream {
  if (!userId) throw missingField('user_id');
  validateUserId(userId);
  const parties = req.parties ?? [];
  for (const p of parties) if (!PARTY.test(p)) throw invalidArgument(`Invalid party ${JSON.stringify(p)}: expected 1 to 255 characters of [a-zA-Z0-9:-_ ]`);
  const begin = req.beginExclusive ?? 0;
  if (begin < 0) throw negativeOffset(begin, 'begin_exclusive');
  if (begin > ledger.ledgerEnd) throw offsetAfterLedgerEnd('Begin', begin, ledger.ledgerEnd);
  if (parties.length === 0) throw missingField('parties');
  if (ledger.prunedUpTo > begin) throw prunedDataAccessed(begin, ledger.ledgerEnd, ledger.prunedUpTo);
  return { userId, parties: new Set(parties), beginExclusive: begin };
}
