// The rendered second of the last call: a busy ledger renders many timestamps within one second (two or three per
// executeAndWait), and Date's formatting costs more than the rest of the function.
let lastSecond = -1n;
let lastPrefix = '';

/** Microsecond-precision ISO-8601 UTC timestamps, as Canton renders them (`2025-01-01T00:00:00.123456Z`). */
export function isoMicros(micros: bigint): string {
  if (micros < 0n) {
    const iso = new Date(Number(micros / 1000n)).toISOString();
    return `${iso.slice(0, iso.length - 1)}${String(Number(micros % 1000n)).padStart(3, '0')}Z`;
  }
  const second = micros / 1_000_000n;
  if (second !== lastSecond) {
    const iso = new Date(Number(second) * 1000).toISOString(); // …T00:00:00.000Z
    lastPrefix = iso.slice(0, iso.length - 4); // up to and with the '.'
    lastSecond = second;
  }
  return `${lastPrefix}${String(Number(micros - second * 1_000_000n)).padStart(6, '0')}Z`;
}

export function parseIsoMicros(s: string): bigint {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z$/.exec(s);
  if (!m) throw new Error(`not an ISO-8601 UTC timestamp: ${s}`);
  const secs = BigInt(Date.parse(`${m[1]}Z`)) / 1000n;
  const frac = (m[2] ?? '').padEnd(6, '0').slice(0, 6);
  return secs * 1_000_000n + BigInt(frac);
}

export const nowMicros = (): bigint => BigInt(Date.now()) * 1000n;
