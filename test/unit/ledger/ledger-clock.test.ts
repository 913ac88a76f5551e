import { describe, expect, it } from 'vitest';
import { LedgerError, StaticClock, WallClock } from '@ledgerline/domain';
import { loadConfig } from '@ledgerline/server/config';
import { parseDurationMicros } from '../../../apps/ledgerctl/src/duration';

describe('LedgerClock', () => {
  it('the wall clock reads Date.now in µs', () => {
    const before = BigInt(Date.now()) * 1000n;
    const t = new WallClock().nowMicros();
    expect(t >= before && t <= BigInt(Date.now()) * 1000n).toBe(true);
  });

  it('a static clock stands still, moves forwards when set, refuses backwards and ignores stale observations', () => {
    const clock = new StaticClock(1_000n);
    expect([clock.nowMicros(), clock.nowMicros()]).toEqual([1_000n, 1_000n]);
    clock.set(1_000n);
    clock.set(2_000n);
    expect(clock.nowMicros()).toBe(2_000n);
    let refused: unknown;
    try {
      clock.set(1_999n);
    } catch (e) {
      refused = e;
    }
    expect(refused).toBeInstanceOf(LedgerError);
    expect(refused).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect((refused as LedgerError).causeText).toBe(
      'The submitted request has invalid arguments: new_time [1970-01-01T00:00:00.001999Z] is before current_time [1970-01-01T00:00:00.002000Z]. Setting time backwards is not allowed.',
    );
    expect(clock.nowMicros()).toBe(2_000n);
    clock.observe(1_500n);
    expect(clock.nowMicros()).toBe(2_000n);
    clock.observe(3_000n);
    expect(clock.nowMicros()).toBe(3_000n);
  });
});

describe('ledgerctl durations', () => {
  it.each([
    ['500ms', 500_000n],
    ['90s', 90_000_000n],
    ['15m', 900_000_000n],
    ['2h', 7_200_000_000n],
    ['1d', 86_400_000_000n],
    ['PT1H30M', 5_400_000_000n],
    ['P1DT1S', 86_401_000_000n],
    ['PT0.5S', 500_000n],
  ])('%s', (text, micros) => expect(parseDurationMicros(text)).toBe(micros));

  it.each(['', '1', '-1s', '1w', 'P', 'PT', 'P1DT', '1.5h', 'PT1.1234567S'])('refuses %j', (text) =>
    expect(parseDurationMicros(text)).toBeNull(),
  );
});

describe('LEDGER_TIME_MODE and LEDGER_STATIC_TIME_START', () => {
  it('are checked at start-up', () => {
    expect(loadConfig({}).timeMode).toBe('wall');
    expect(loadConfig({ LEDGER_TIME_MODE: 'static', LEDGER_STATIC_TIME_START: '2030-01-01T00:00:00Z' })).toMatchObject({
      timeMode: 'static',
      staticTimeStart: 1_893_456_000_000_000n,
    });
    expect(() => loadConfig({ LEDGER_TIME_MODE: 'frozen', LEDGER_STATIC_TIME_START: 'soon' })).toThrow(
      [
        'Invalid configuration:',
        "  - LEDGER_TIME_MODE must be wall or static (got 'frozen')",
        "  - LEDGER_STATIC_TIME_START must be an ISO-8601 UTC timestamp at or after 1970-01-01T00:00:00Z, e.g. 2025-01-01T00:00:00Z (got 'soon')",
      ].join('\n'),
    );
  });
});
