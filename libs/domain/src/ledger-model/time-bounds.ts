import { isoMicros } from '../ledger/time';
import { ledgerTimeOutOfBound, maxRecordTimeExceeded, preparationTimeOutOfBound } from './errors';

/**
 * Time rules of an externally signed transaction, checked against the record time it would get (`now`):
 * - `maxRecordTime` (if set): now ≤ maxRecordTime, else LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED;
 * - `preparationTime` within ± `preparationTimeToleranceMicros` of now, else LOCAL_VERDICT_PREPARATION_TIME_OUT_OF_BOUND;
 * - the ledger effective time is chosen when the transaction is submitted (`submittedAt`, default now), as Canton's
 *   submitting participant chooses it before the record time is known: that time, raised to the request's
 *   `minLedgerTime`, then clamped into the prepared [minLedgerEffectiveTime, maxLedgerEffectiveTime] bounds (as Canton's
 *   decoder does); it must stay within ± `ledgerTimeToleranceMicros` of now, else LOCAL_VERDICT_LEDGER_TIME_OUT_OF_BOUND.
 * Returns the ledger effective time (µs since the epoch).
 */
export interface TimeBoundsConfig {
  preparationTimeToleranceMicros: bigint;
  ledgerTimeToleranceMicros: bigint;
}

export interface PreparedTimes {
  preparationTime: bigint;
  minLedgerEffectiveTime?: bigint;
  maxLedgerEffectiveTime?: bigint;
  maxRecordTime?: bigint;
}

/** Java-Duration-like rendering of µs, e.g. `PT1M`, `PT0.5S`, `PT24H`. */
export function isoDuration(micros: bigint): string {
  const neg = micros < 0n;
  let us = neg ? -micros : micros;
  const h = us / 3_600_000_000n;
  us -= h * 3_600_000_000n;
  const m = us / 60_000_000n;
  us -= m * 60_000_000n;
  const s = us / 1_000_000n;
  const frac = us % 1_000_000n;
  let out = 'PT';
  if (h) out += `${h}H`;
  if (m) out += `${m}M`;
  if (s || frac || (!h && !m)) out += `${s}${frac ? '.' + frac.toString().padStart(6, '0').replace(/0+$/, '') : ''}S`;
  return neg ? `-${out}` : out;
}

const abs = (x: bigint) => (x < 0n ? -x : x);

/** ISO-8601 when representable, else the raw µs count (a client may send any int64). */
function ts(micros: bigint): string {
  try {
    return isoMicros(micros);
  } catch {
    return `${micros}µs`;
  }
}

export function checkTimeBounds(
  times: PreparedTimes,
  now: bigint,
  cfg: TimeBoundsConfig,
  minLedgerTime?: bigint,
  submittedAt?: bigint,
): bigint {
  if (times.maxRecordTime !== undefined && now > times.maxRecordTime) {
    throw maxRecordTimeExceeded(`recordTime=${ts(now)}, maxRecordTime=${ts(times.maxRecordTime)}`);
  }
  if (abs(now - times.preparationTime) > cfg.preparationTimeToleranceMicros) {
    throw preparationTimeOutOfBound(
      `preparationTime=${ts(times.preparationTime)}, recordTime=${ts(now)}, maxDelta=${isoDuration(cfg.preparationTimeToleranceMicros)}`,
    );
  }
  const { minLedgerEffectiveTime: lo, maxLedgerEffectiveTime: hi } = times;
  if (lo !== undefined && hi !== undefined && lo > hi) {
    throw ledgerTimeOutOfBound(`minLedgerEffectiveTime=${ts(lo)} is after maxLedgerEffectiveTime=${ts(hi)}`);
  }
  const ledgerTime = chooseLedgerTime(times, submittedAt ?? now, minLedgerTime);
  if (abs(ledgerTime - now) > cfg.ledgerTimeToleranceMicros) {
    throw ledgerTimeOutOfBound(
      `ledgerTime=${ts(ledgerTime)}, recordTime=${ts(now)}, maxDelta=${isoDuration(cfg.ledgerTimeToleranceMicros)}`,
    );
  }
  return ledgerTime;
}

/**
 * The ledger effective time of a transaction submitted at `submittedAt` (µs): that time, raised to `minLedgerTime`, then
 * clamped into the prepared bounds. `checkTimeBounds` checks it against the record time.
 */
export function chooseLedgerTime(times: PreparedTimes, submittedAt: bigint, minLedgerTime?: bigint): bigint {
  const { minLedgerEffectiveTime: lo, maxLedgerEffectiveTime: hi } = times;
  let ledgerTime = submittedAt;
  if (minLedgerTime !== undefined && minLedgerTime > ledgerTime) ledgerTime = minLedgerTime;
  if (lo !== undefined && ledgerTime < lo) ledgerTime = lo;
  if (hi !== undefined && ledgerTime > hi) ledgerTime = hi;
  return ledgerTime;
}
