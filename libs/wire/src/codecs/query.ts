import { queryDecodeError } from '../decode-error';

/** A single-valued optional string query parameter: the last one when repeated, '' when absent, else a 400 decode error. */
export function stringQuery(name: string, raw: unknown): string {
  if (raw === undefined) return '';
  const v = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  if (typeof v !== 'string') throw queryDecodeError(name);
  return v;
}

/** An optional boolean query parameter (`true`/`false`, any case), else a 400 decode error. */
export function booleanQuery(name: string, raw: unknown, fallback: boolean): boolean {
  if (raw === undefined) return fallback;
  const text = stringQuery(name, raw);
  const v = text.toLowerCase();
  if (v !== 'true' && v !== 'false') throw queryDecodeError(name, `expected a boolean, got '${text}'`);
  return v === 'true';
}
