import { ErrorCategories, failedPrecondition, LedgerError } from '../errors';
import { validateUpdateFormat, type GetUpdatesRequest, type UpdateFormat } from './format';

/** What a validated updates request reads: `(beginExclusive, endInclusive]`, `endInclusive` null for a tailing stream. */
export interface ReadRange {
  beginExclusive: number;
  endInclusive: number | null;
  descending: boolean;
  /** begin == end: nothing to read. */
  empty: boolean;
}

const C = ErrorCategories;

export const negativeOffset = (value: number, field: string) =>
  new LedgerError(
    'NEGATIVE_OFFSET',
    C.InvalidIndependentOfSystemState,
    `Offset ${value} in ${field} is a negative integer: the offset in ${field} field has to be a non-negative integer (>=0)`,
  );

export const nonPositiveOffset = (value: number, field: string, message: string) =>
  new LedgerError(
    'NON_POSITIVE_OFFSET',
    C.InvalidIndependentOfSystemState,
    `Offset ${value} in ${field} is not a positive integer: ${message}`,
  );

export const descendingOrderMissingEnd = () =>
  new LedgerError(
    'DESCENDING_ORDER_MISSING_END',
    C.InvalidIndependentOfSystemState,
    'The end_inclusive offset must be set when descending_order is requested: a descending stream cannot start at an open end',
  );

export const offsetAfterLedgerEnd = (which: 'Begin' | 'End', value: number, ledgerEnd: number) =>
  new LedgerError(
    'OFFSET_AFTER_LEDGER_END',
    C.InvalidGivenCurrentSystemStateSeekAfterEnd,
    `${which} offset (${value}) is after ledger end (${ledgerEnd})`,
  );

export const offsetOutOfRange = (begin: number, end: number) =>
  failedPrecondition('OFFSET_OUT_OF_RANGE', `End offset ${end} is before begin offset ${begin}.`);

export const prunedDataAccessed = (begin: number, end: number, pruned: number) =>
  failedPrecondition(
    'PARTICIPANT_PRUNED_DATA_ACCESSED',
    `Updates request from ${begin} to ${end} precedes pruned offset ${pruned}`,
    {
      context: { earliest_offset: String(pruned) },
    },
  );

/**
 * The checks of Canton's UpdateServiceRequestValidator (ledger-api-core: ledger/api/validation/), in its order, against
 * the ledger end and pruning offset read at request time:
 * NEGATIVE_OFFSET, DESCENDING_ORDER_MISSING_END / NON_POSITIVE_OFFSET, OFFSET_AFTER_LEDGER_END (begin, then end), the
 * update format, OFFSET_OUT_OF_RANGE (begin == end is an empty result), PARTICIPANT_PRUNED_DATA_ACCESSED.
 */
export function validateUpdatesRequest(
  req: GetUpdatesRequest,
  format: UpdateFormat,
  ledger: { ledgerEnd: number; prunedUpTo: number },
): ReadRange {
  const begin = req.beginExclusive ?? 0;
  const end = req.endInclusive ?? null;
  const descending = req.descendingOrder ?? false;
  if (begin < 0) throw negativeOffset(begin, 'begin_exclusive');
  if (descending) {
    if (end === null) throw descendingOrderMissingEnd();
    if (end <= 0)
      throw nonPositiveOffset(
        end,
        'end_inclusive',
        'the offset in end_inclusive field has to be a positive integer (>0)',
      );
  } else if (end !== null && end <= 0) {
    throw nonPositiveOffset(
      end,
      'end_inclusive',
      'the offset has to be either a positive integer (>0) or not defined at all',
    );
  }
  if (begin > ledger.ledgerEnd) throw offsetAfterLedgerEnd('Begin', begin, ledger.ledgerEnd);
  if (end !== null && end > ledger.ledgerEnd) throw offsetAfterLedgerEnd('End', end, ledger.ledgerEnd);
  validateUpdateFormat(format);
  if (end !== null && begin > end) throw offsetOutOfRange(begin, end);
  const empty = end !== null && begin === end;
  if (!empty && ledger.prunedUpTo > begin) throw prunedDataAccessed(begin, end ?? ledger.ledgerEnd, ledger.prunedUpTo);
  return { beginExclusive: begin, endInclusive: end, descending, empty };
}
