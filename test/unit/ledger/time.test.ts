import { describe, expect, it } from 'vitest';
import { isoMicros, parseIsoMicros } from '@ledgerline/domain';

/** The rendering without the per-second cache: Date's milliseconds, then the three microsecond digits. */
const reference = (micros: bigint) =>
  `${new Date(Number(micros / 1000n)).toISOString().slice(0, 23)}${String(Number(micros % 1000n)).padStart(3, '0')}Z`;

describe('isoMicros', () => {
  it('renders microsecond timestamps as Canton does, whether the second was rendered before or not', () => {
    const base = 1_795_563_904_000_000n; // 2026-11-24T23:45:04Z
    const values: bigint[] = [
      0n,
      1n,
      999_999n,
      1_000_000n,
      base,
      base + 1n,
      base + 999_999n,
      base + 1_000_000n,
      253_402_300_799_999_999n,
    ];
    let x = base;
    for (let i = 0; i < 2000; i++) {
      x += BigInt(Math.floor(Math.random() * 3_000_000)); // mostly within the same second, sometimes the next ones
      values.push(x, base - BigInt(Math.floor(Math.random() * 1e12))); // and jumps back and forth
    }
    for (const v of values) {
      expect(isoMicros(v)).toBe(reference(v));
      expect(parseIsoMicros(isoMicros(v))).toBe(v);
    }
  });

  it('examples', () => {
    expect(isoMicros(0n)).toBe('1970-01-01T00:00:00.000000Z');
    expect(isoMicros(1_795_563_904_340_012n)).toBe('2026-11-24T23:45:04.340012Z');
    expect(isoMicros(1_795_563_904_340_012n)).toBe('2026-11-24T23:45:04.340012Z');
    expect(isoMicros(1_795_563_905_000_001n)).toBe('2026-11-24T23:45:05.000001Z');
  });
});
