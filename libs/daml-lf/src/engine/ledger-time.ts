/**
 * The ledger time bounds of one interpretation (Canton `speedy/Speedy.scala`: `timeBoundaries`, `needTime`;
 * `speedy/SBuiltinFun.scala`: `SBUGetTime`, `SBULedgerTimeLT`). At any point, the interpretation so far gives the same
 * result for every ledger time within the bounds (inclusive, µs since the epoch). They start unconstrained (the whole
 * Daml timestamp range); each read of the ledger time narrows them:
 * - `getTime` pins them to the time read;
 * - `ledgerTimeLt t` (is the ledger time before `t`?) lowers the upper bound to `t - 1µs` when it answers true, and raises
 *   the lower bound to `t` when it answers false.
 * The time the ledger answers must lie within the current bounds (else the interpretation is broken: an internal error).
 */
import { internal } from '../interpreter/errors';
import { TIMESTAMP_MAX, TIMESTAMP_MIN, timestampToText } from '../interpreter/time';

export interface TimeRange {
  readonly min: bigint;
  readonly max: bigint;
}

export const UNCONSTRAINED_TIME: TimeRange = { min: TIMESTAMP_MIN, max: TIMESTAMP_MAX };

const rangeText = (r: TimeRange) => `[${timestampToText(r.min)}, ${timestampToText(r.max)}]`;

/** Refuses a ledger time outside the bounds (Canton's NeedTime pre-condition). */
export function checkWithinBounds(bounds: TimeRange, now: bigint): void {
  if (now < bounds.min || now > bounds.max)
    throw internal(
      `NeedTime pre-condition failed: time ${timestampToText(now)} lies outside time boundaries ${rangeText(bounds)}`,
    );
}

/** `getTime` read `now`: the bounds are that instant. */
export function boundsAfterGetTime(bounds: TimeRange, now: bigint): TimeRange {
  checkWithinBounds(bounds, now);
  return { min: now, max: now };
}

/** `ledgerTimeLt time` with the ledger time `now`: its answer and the narrowed bounds. */
export function boundsAfterLedgerTimeLt(
  bounds: TimeRange,
  now: bigint,
  time: bigint,
): { readonly result: boolean; readonly bounds: TimeRange } {
  checkWithinBounds(bounds, now);
  if (now < time) {
    const ub = time - 1n;
    return { result: true, bounds: { min: bounds.min, max: ub < bounds.max ? ub : bounds.max } };
  }
  return { result: false, bounds: { min: time > bounds.min ? time : bounds.min, max: bounds.max } };
}

/** The bounds as transaction metadata: a side equal to the timestamp range's end is no constraint (Canton's `LedgerTimeBoundaries`). */
export function boundsConstraints(bounds: TimeRange): { min?: bigint; max?: bigint } {
  return {
    ...(bounds.min !== TIMESTAMP_MIN ? { min: bounds.min } : {}),
    ...(bounds.max !== TIMESTAMP_MAX ? { max: bounds.max } : {}),
  };
}
