/**
 * The budget of one command interpretation, and Canton's error when it is spent (ledger-api-core
 * `CommandExecutionErrors.scala` `TimeExceeded`: INTERPRETATION_TIME_EXCEEDED, ContentionOnSharedResources, retryable
 * after 60 seconds). As Canton's `StoreBackedCommandInterpreter`, the interpretation stops when the ledger's clock passes
 * the ledger effective time it runs at plus a tolerance; it also stops after a number of engine steps. The engine is
 * synchronous: it stops every `stepsBetweenInterruptions` steps so the caller can look at the clock (and let other
 * requests run) before it goes on.
 */
import { ErrorCategories, LedgerError } from '../errors';
import { isoMicros } from '../ledger/time';
import { isoDuration } from '../ledger-model/time-bounds';

/** Canton's rendering of a duration in messages (`PrettyInstances.prettyJDuration`): `1m`, `1m 30s`, `0.5s`. */
export function prettyDuration(micros: bigint): string {
  return isoDuration(micros)
    .slice(2)
    .replace(/(\d[HMS])(?!$)/g, '$1 ')
    .toLowerCase();
}

/** Canton's rendering of a timestamp (`Time.Timestamp.toString`, ISO_INSTANT): the fraction in groups of 3 digits, none if zero. */
export function instantText(micros: bigint): string {
  const iso = isoMicros(micros);
  const frac = iso.slice(-7, -1);
  const shown = frac === '000000' ? '' : frac.endsWith('000') ? `.${frac.slice(0, 3)}` : `.${frac}`;
  return `${iso.slice(0, -8)}${shown}Z`;
}

/** Whether the clock (`now`, µs) has passed the interpretation's limit. */
export const interpretationTimeLimitPassed = (ledgerEffectiveTime: bigint, toleranceMicros: bigint, now: bigint) =>
  now > ledgerEffectiveTime + toleranceMicros;

export const interpretationTimeExceeded = (cause: string) =>
  new LedgerError('INTERPRETATION_TIME_EXCEEDED', ErrorCategories.ContentionOnSharedResources, cause, {
    retryInfo: '60 seconds',
  });

/** The clock passed the ledger effective time plus the tolerance. */
export const interpretationTimeLimitExceeded = (ledgerEffectiveTime: bigint, toleranceMicros: bigint) =>
  interpretationTimeExceeded(
    `Time exceeds limit of Ledger Effective Time (${instantText(ledgerEffectiveTime)}) + tolerance (${prettyDuration(toleranceMicros)}). Interpretation aborted.`,
  );

/** Canton's `CommandExecutionErrors.FailedToDetermineLedgerTime` after the re-interpretations at later ledger times. */
export const failedToDetermineLedgerTime = (retries: number) =>
  new LedgerError(
    'FAILED_TO_DETERMINE_LEDGER_TIME',
    ErrorCategories.ContentionOnSharedResources,
    `The participant failed to determine the max ledger time for this command: Could not find a suitable ledger time after ${retries} retries`,
  );
