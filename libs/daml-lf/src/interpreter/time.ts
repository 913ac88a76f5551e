/**
 * Daml-LF Date (days since 1970-01-01, 0001-01-01 … 9999-12-31) and Timestamp (µs since the epoch,
 * 0001-01-01T00:00:00Z … 9999-12-31T23:59:59.999999Z) with Canton's ranges and renderings (`data/…/Time.scala`).
 */
export const DATE_MIN = -719162; // 0001-01-01
export const DATE_MAX = 2932896; // 9999-12-31
export const TIMESTAMP_MIN = -62135596800000000n;
export const TIMESTAMP_MAX = 253402300799999999n;

export const dateInRange = (d: bigint | number) => BigInt(d) >= BigInt(DATE_MIN) && BigInt(d) <= BigInt(DATE_MAX);
export const timestampInRange = (t: bigint) => t >= TIMESTAMP_MIN && t <= TIMESTAMP_MAX;

const pad = (n: number, w: number) => String(n).padStart(w, '0');

/** Civil date of a day number (Howard Hinnant's algorithm; proleptic Gregorian). */
export function civil(days: number): { y: number; m: number; d: number } {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return { y: era * 400 + yoe + (m <= 2 ? 1 : 0), m, d };
}

export function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** `YYYY-MM-DD` (ISO_DATE). */
export function dateToText(days: number): string {
  const { y, m, d } = civil(days);
  return `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`;
}

const DAY_US = 86_400_000_000n;

/** ISO_INSTANT: `…T10:00:00Z`, fractions in groups of three digits as needed. */
export function timestampToText(us: bigint): string {
  let days = us / DAY_US;
  let rem = us % DAY_US;
  if (rem < 0n) {
    rem += DAY_US;
    days -= 1n;
  }
  const sod = Number(rem / 1_000_000n);
  const frac = Number(rem % 1_000_000n);
  let f = '';
  if (frac !== 0) f = frac % 1000 === 0 ? '.' + pad(frac / 1000, 3) : '.' + pad(frac, 6);
  return `${dateToText(Number(days))}T${pad(Math.floor(sod / 3600), 2)}:${pad(Math.floor((sod % 3600) / 60), 2)}:${pad(sod % 60, 2)}${f}Z`;
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Strict `YYYY-MM-DD` in range; undefined otherwise. */
export function parseDate(s: string): number | undefined {
  const m = DATE_RE.exec(s);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1 || d > 31) return undefined;
  const days = daysFromCivil(y, mo, d);
  const back = civil(days);
  if (back.m !== mo || back.d !== d) return undefined;
  return dateInRange(days) ? days : undefined;
}

const TS_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * An ISO-8601 instant (`Instant.parse` with offsets as Canton's JSON codec accepts them); sub-microsecond digits are
 * truncated towards the past (Canton rounds FLOOR). Undefined when malformed or out of range.
 */
export function parseTimestamp(s: string): bigint | undefined {
  const m = TS_RE.exec(s);
  if (!m) return undefined;
  const days = parseDate(`${m[1]}-${m[2]}-${m[3]}`);
  if (days === undefined) return undefined;
  const [hh, mi, ss] = [Number(m[4]), Number(m[5]), Number(m[6] ?? '0')];
  if (hh > 23 || mi > 59 || ss > 59) return undefined;
  const nanos = BigInt((m[7] ?? '').padEnd(9, '0') || '0');
  let offsetUs = 0n;
  if (m[8] !== 'Z') {
    const sign = m[8][0] === '-' ? -1n : 1n;
    const [oh, om] = m[8].slice(1).split(':').map(Number);
    offsetUs = sign * BigInt(oh * 3600 + om * 60) * 1_000_000n;
  }
  const nanosTotal = (BigInt(days) * 86_400n + BigInt(hh * 3600 + mi * 60 + ss)) * 1_000_000_000n + nanos;
  let us = nanosTotal / 1000n;
  if (nanosTotal % 1000n < 0n) us -= 1n;
  us -= offsetUs;
  return timestampInRange(us) ? us : undefined;
}

/** Java's `DateTimeFormatter.ISO_DATE_TIME` of a UTC instant (Canton's JSON codec): seconds always, the fraction with as
 * few digits as needed (`….5Z`, `….000001Z`). */
export function timestampToIsoDateTime(us: bigint): string {
  const base = timestampToText(us - (((us % 1_000_000n) + 1_000_000n) % 1_000_000n));
  const frac = Number(((us % 1_000_000n) + 1_000_000n) % 1_000_000n);
  if (frac === 0) return base;
  const digits = String(frac * 1000)
    .padStart(9, '0')
    .replace(/0+$/, '');
  return base.slice(0, -1) + '.' + digits + 'Z';
}
