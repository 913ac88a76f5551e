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

/** GetCompletionsRequest (POST and WebSocket /v2/commands/command-completions): no user id; parties optional. */
export interface GetCompletionsRequest {
  parties?: string[];
  beginExclusive?: number;
}

/** A completion request of either form, as its endpoint decoded it. */
export type CompletionsRequest =
  { form: 'stream'; request: CompletionStreamRequest } | { form: 'get'; request: GetCompletionsRequest };

/** Which completions a request sees, from where. */
export interface CompletionFilter {
  /** null: every user's (GetCompletions). */
  userId: string | null;
  /** The commands with an actAs party among these, actAs cut down to them; null: every command, actAs whole. */
  parties: ReadonlySet<string> | null;
  beginExclusive: number;
}

/**
 * Authorization, then the request's checks against the ledger end and pruning offset read now (Canton's
 * CommandCompletionServiceAuthorization, CompletionServiceRequestValidator and ApiCommandCompletionService):
 * - CompletionStream: MatchUserId — a caller who may read as any party may name any user — and ReadAs for every requested
 *   party; then user id, parties, `begin_exclusive` ≥ 0 and ≤ the ledger end, `parties` non-empty. One user's completions.
 * - GetCompletions: ReadAs for every requested party, or the any-party right when none is named; then parties and the
 *   offset. Every user's completions, of the requested parties or, with none, of all.
 */
export function completionFilterOf(
  claims: Claims,
  req: CompletionsRequest,
  ledger: { ledgerEnd: number; prunedUpTo: number },
): CompletionFilter {
  const parties = req.request.parties ?? [];
  let userId: string | null = null;
  if (req.form === 'stream') {
    const u = req.request.userId;
    userId = u && readsAsAnyParty(claims) ? u : matchUserId(claims, u);
    authorizeReadAs(claims, parties);
    if (!userId) throw missingField('user_id');
    validateUserId(userId);
  } else {
    if (parties.length === 0 && !readsAsAnyParty(claims))
      throw permissionDenied('Claims do not authorize to read data as any party');
    authorizeReadAs(claims, parties);
  }
  for (const p of parties)
    if (!PARTY.test(p))
      throw invalidArgument(`Invalid party ${JSON.stringify(p)}: expected 1 to 255 characters of [a-zA-Z0-9:-_ ]`);
  const begin = req.request.beginExclusive ?? 0;
  if (begin < 0) throw negativeOffset(begin, 'begin_exclusive');
  if (begin > ledger.ledgerEnd) throw offsetAfterLedgerEnd('Begin', begin, ledger.ledgerEnd);
  if (req.form === 'stream' && parties.length === 0) throw missingField('parties');
  if (ledger.prunedUpTo > begin) throw prunedDataAccessed(begin, ledger.ledgerEnd, ledger.prunedUpTo);
  return { userId, parties: parties.length ? new Set(parties) : null, beginExclusive: begin };
}

function authorizeReadAs(claims: Claims, parties: readonly string[]): void {
  for (const p of parties)
    if (!canReadAs(claims, p)) throw permissionDenied(`Claims do not authorize to read data for party '${p}'`);
}

const PARTY = /^[a-zA-Z0-9:\-_ ]{1,255}$/;
