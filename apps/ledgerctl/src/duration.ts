/** `90s`, `15m`, `2h`, `1d`, `500ms`, or ISO-8601 `P[nD][T[nH][nM][n[.f]S]]`, in µs; null if it is none of these. */
export function parseDurationMicros(text: string): bigint | null {
  const unit: Record<string, bigint> = {
    ms: 1_000n,
    s: 1_000_000n,
    m: 60_000_000n,
    h: 3_600_000_000n,
    d: 86_400_000_000n,
  };
  const simple = /^(\d{1,12})(ms|s|m|h|d)$/.exec(text);
  if (simple) return BigInt(simple[1]) * unit[simple[2]];
  const iso = /^P(?:(\d{1,9})D)?(?:T(?:(\d{1,9})H)?(?:(\d{1,9})M)?(?:(\d{1,12})(?:\.(\d{1,6}))?S)?)?$/.exec(text);
  if (!iso || text === 'P' || text.endsWith('T')) return null;
  const [, d, h, m, s, f] = iso;
  return (
    BigInt(d ?? 0) * unit.d +
    BigInt(h ?? 0) * unit.h +
    BigInt(m ?? 0) * unit.m +
    BigInt(s ?? 0) * unit.s +
    BigInt((f ?? '').padEnd(6, '0') || 0)
  );
}
