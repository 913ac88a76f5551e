import { invalidArgument } from '../errors';
import { isoMicros } from './time';

/**
 * The ledger's clock: what "now" means for every rule that reads time (deduplication windows, time bounds and ledger-time
 * tolerance, assignment exclusivity, package vetting, the record times the writer assigns, and the Daml engine's
 * `getTime`). One instance per ledger; rules take its reading as a value, so they stay pure.
 */
export interface LedgerClock {
  /** `wall`: the machine's clock. `static`: moves only when told (setTime / advance). */
  readonly mode: 'wall' | 'static';
  /** Now, in microseconds since the epoch. */
  nowMicros(): bigint;
}

/** The machine's clock (the default). */
export class WallClock implements LedgerClock {
  readonly mode = 'wall' as const;
  nowMicros(): bigint {
    return BigInt(Date.now()) * 1000n;
  }
}

/** A clock that stands still until told to move; it never moves backwards. */
export class StaticClock implements LedgerClock {
  readonly mode = 'static' as const;
  private micros: bigint;

  constructor(startMicros: bigint) {
    this.micros = startMicros;
  }

  nowMicros(): bigint {
    return this.micros;
  }

  /** Moves the clock to `micros`; a time before the current one is refused (INVALID_ARGUMENT, nothing changes). */
  set(micros: bigint): void {
    checkForward(this.micros, micros);
    this.micros = micros;
  }

  /** Takes a reading observed elsewhere (another process moved the ledger's time): only ever forwards, never throws. */
  observe(micros: bigint): void {
    if (micros > this.micros) this.micros = micros;
  }
}

/** Refuses to move time from `current` to the earlier `requested`, as Canton's time service does. */
export function checkForward(current: bigint, requested: bigint): void {
  if (requested < current) {
    throw invalidArgument(
      `new_time [${isoMicros(requested)}] is before current_time [${isoMicros(current)}]. Setting time backwards is not allowed.`,
    );
  }
}
