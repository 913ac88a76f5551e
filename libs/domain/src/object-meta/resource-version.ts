import { invalidField } from '../errors';

/** Resource versions on the wire are decimal int64 strings; '' means "no concurrency check". */
export function parseResourceVersion(raw: string, field: string): bigint | null {
  if (raw === '') return null;
  if (!/^[+-]?\d{1,19}$/.test(raw)) throw invalidField(field, 'Invalid resource version number');
  const v = BigInt(raw);
  if (v > 2n ** 63n - 1n || v < -(2n ** 63n)) throw invalidField(field, 'Invalid resource version number');
  return v;
}
