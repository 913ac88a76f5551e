/** Microsecond-precision ISO-8601 UTC timestamps, as Canton renders them. */
export function isoMicros(micros: bigint): string {
  const ms = micros / 1000n;
  const rest = Number(micros % 1000n);
  const base = new Date(Number(ms)).toISOString(); // 2025-01-01T00:00:00.123Z
  return `${base.slice(0, 23)}${String(rest).padStart(3, '0')}Z`;
}

export function parseIsoMicros(s: string): bigint {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z$/.exec(s);
  if (!m) throw new Error(`not an ISO-8601 UTC timestamp: ${s}`);
  const secs = BigInt(Date.parse(`${m[1]}Z`)) / 1000n;
  const frac = (m[2] ?? '').padEnd(6, '0').slice(0, 6);
  return secs * 1_000_000n + BigInt(frac);
}

export const nowMicros = (): bigint => BigInt(Date.now()) * 1000n;
