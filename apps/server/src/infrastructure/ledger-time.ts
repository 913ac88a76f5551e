import { checkForward, invalidArgument, isoMicros, StaticClock, type LedgerClock } from '@ledgerline/domain';
import { LedgerTimeRepository, type Database } from '@ledgerline/store';

/** How to move the static time: to a time, or by a duration; `expected` (optional) must equal the current time. */
export interface MoveLedgerTime {
  newTime?: bigint;
  advanceByMicros?: bigint;
  expected?: bigint;
}

/**
 * Moves the stored static time (shared by every instance, kept across restarts) and `clock`, if this process holds
 * the static clock. Refuses, changing nothing: the wall clock, a time before the current one, a stale `expected`.
 * Answers the new time.
 */
export async function moveLedgerTime(
  db: Database['db'],
  clock: LedgerClock | null,
  move: MoveLedgerTime,
): Promise<bigint> {
  if (clock && clock.mode !== 'static') {
    throw invalidArgument(
      'the ledger runs on the wall clock; its time moves only in static-time mode (LEDGER_TIME_MODE=static)',
    );
  }
  const repo = new LedgerTimeRepository();
  const current = await repo.get(db);
  if (current === null)
    throw invalidArgument('the ledger has no static time: start it once with LEDGER_TIME_MODE=static');
  if (move.expected !== undefined && move.expected !== current) {
    throw invalidArgument(
      `current_time mismatch. Provided: ${isoMicros(move.expected)}. Actual: ${isoMicros(current)}`,
    );
  }
  const target = move.newTime ?? current + (move.advanceByMicros ?? 0n);
  checkForward(current, target);
  const result = await repo.moveTo(db, target);
  if (clock instanceof StaticClock) clock.observe(result.current);
  // Another mover won in between with a later time.
  if (!result.moved) checkForward(result.current, target);
  return target;
}
