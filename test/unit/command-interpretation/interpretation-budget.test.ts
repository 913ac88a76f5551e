import { describe, expect, it } from 'vitest';
import {
  ErrorCategories,
  instantText,
  interpretationTimeLimitExceeded,
  interpretationTimeLimitPassed,
  prettyDuration,
} from '@ledgerline/domain';

/** The interpretation time limit and Canton's INTERPRETATION_TIME_EXCEEDED (CommandExecutionErrors.TimeExceeded). */
describe('interpretation budget', () => {
  it('renders durations as Canton does in messages', () => {
    expect(prettyDuration(60_000_000n)).toBe('1m');
    expect(prettyDuration(90_000_000n)).toBe('1m 30s');
    expect(prettyDuration(1_000n)).toBe('0.001s');
    expect(prettyDuration(3_600_000_000n + 5_000_000n)).toBe('1h 5s');
  });

  it('renders timestamps as Canton does in messages (ISO instant, the fraction in groups of 3 digits)', () => {
    expect(instantText(1_893_456_000_000_000n)).toBe('2030-01-01T00:00:00Z');
    expect(instantText(1_893_456_000_120_000n)).toBe('2030-01-01T00:00:00.120Z');
    expect(instantText(1_893_456_000_000_001n)).toBe('2030-01-01T00:00:00.000001Z');
  });

  it('the limit passes strictly after the ledger effective time + the tolerance', () => {
    expect(interpretationTimeLimitPassed(100n, 50n, 150n)).toBe(false);
    expect(interpretationTimeLimitPassed(100n, 50n, 151n)).toBe(true);
  });

  it("is Canton's error: code, category, cause and retry after 60 seconds", () => {
    const e = interpretationTimeLimitExceeded(1_893_456_000_000_000n, 60_000_000n);
    expect(e.code).toBe('INTERPRETATION_TIME_EXCEEDED');
    expect(e.category).toBe(ErrorCategories.ContentionOnSharedResources);
    expect(e.causeText).toBe(
      'Time exceeds limit of Ledger Effective Time (2030-01-01T00:00:00Z) + tolerance (1m). Interpretation aborted.',
    );
    expect(e.retryInfo).toBe('60 seconds');
  });
});
