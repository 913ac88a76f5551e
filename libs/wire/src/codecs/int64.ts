import { pathDecodeError, queryDecodeError } from '../decode-error';

/** JSON schema of an int64 field: a JSON integer or a decimal string (circe accepts both). */
export const int64Schema = { anyOf: [{ type: 'integer' }, { type: 'string', pattern: '^-?[0-9]{1,19}$' }] } as const;

const MAX = 2n ** 63n - 1n;
const MIN = -(2n ** 63n);

/** Parses an int64 body value already validated by `int64Schema`. Values beyond 2^53 are clamped to the safe range. */
export function toInt64(v: unknown): number {
  if (typeof v === 'number') return v;
  const b = BigInt(String(v));
  if (b > MAX || b < MIN) return b > 0n ? Number.MAX_SAFE_INTEGER : Number.MIN_SAFE_INTEGER;
  if (b > BigInt(Number.MAX_SAFE_INTEGER)) return Number.MAX_SAFE_INTEGER;
  if (b < BigInt(Number.MIN_SAFE_INTEGER)) return Number.MIN_SAFE_INTEGER;
  return Number(b);
}

/** A decimal int64 text, or null when it is not one. */
function parseInt64Text(s: unknown): number | null {
  if (typeof s !== 'string' || !/^-?[0-9]{1,19}$/.test(s)) return null;
  const b = BigInt(s);
  if (b > MAX || b < MIN) return null;
  return toInt64(s);
}

/** An optional int64 query parameter: absent → undefined, otherwise a decimal integer or a 400 decode error. */
export function int64Query(name: string, raw: unknown): number | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  const v = parseInt64Text(Array.isArray(raw) ? raw[raw.length - 1] : raw);
  if (v === null) throw queryDecodeError(name);
  return v;
}

/** An int64 path parameter: a decimal integer or a 400 decode error. */
export function int64Path(name: string, raw: unknown): number {
  const v = parseInt64Text(raw);
  if (v === null) throw pathDecodeError(name);
  return v;
}

/** A repeated query parameter (`?parties=a&parties=b`); absent → []. */
export function listQuery(raw: unknown): string[] {
  if (raw === undefined) return [];
  return (Array.isArray(raw) ? raw : [raw]).map(String);
}

/** An optional int32 query parameter (pageSize). */
export function int32Query(name: string, raw: unknown): number | undefined {
  const v = int64Query(name, raw);
  if (v !== undefined && (v > 2 ** 31 - 1 || v < -(2 ** 31))) throw queryDecodeError(name);
  return v;
}
