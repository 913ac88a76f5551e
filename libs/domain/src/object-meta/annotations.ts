import { invalidArgument } from '../errors';

/**
 * Annotations of ObjectMeta (parties, users): key syntax, value rules and the 256 KiB size limit (Canton's
 * ResourceAnnotationValidator, ledger-api-core: ledger/api/validation/).
 */
export const MAX_ANNOTATIONS_SIZE_BYTES = 256 * 1024;

const MAX_NAME = 63;
const MAX_PREFIX = 253;

const isAlnum = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const DASH = 45;
const DOT = 46;
const UNDERSCORE = 95;

/**
 * One pass over `s`: non-empty, starts and ends with an ASCII letter or digit, and in between only those and the
 * characters `inner` accepts. This is Canton's `([a-zA-Z0-9]+[a-zA-Z0-9<inner>]*)?[a-zA-Z0-9]+`, decided in linear time
 * (a backtracking regular expression of that shape is exponential on near-misses such as `aaa.aaa.…!`).
 */
function isSegment(s: string, from: number, to: number, inner: (c: number) => boolean): boolean {
  if (to <= from || !isAlnum(s.charCodeAt(from)) || !isAlnum(s.charCodeAt(to - 1))) return false;
  for (let i = from + 1; i < to - 1; i++) {
    const c = s.charCodeAt(i);
    if (!isAlnum(c) && !inner(c)) return false;
  }
  return true;
}

/** Key name segment: letters, digits, `.`, `-`, `_`; first and last a letter or digit. */
export const isAnnotationKeyName = (name: string): boolean =>
  isSegment(name, 0, name.length, (c) => c === DOT || c === DASH || c === UNDERSCORE);

/** Key prefix: a DNS subdomain, labels of letters, digits and `-` (first and last a letter or digit) joined by `.`. */
export function isAnnotationKeyPrefix(prefix: string): boolean {
  let start = 0;
  for (;;) {
    const dot = prefix.indexOf('.', start);
    const end = dot < 0 ? prefix.length : dot;
    if (!isSegment(prefix, start, end, (c) => c === DASH)) return false;
    if (dot < 0) return true;
    start = dot + 1;
  }
}

/** Java's String.split on one character: trailing empty strings are dropped (`"a/"` is `["a"]`, `"/"` is `[]`). */
function javaSplit(s: string, sep: string): string[] {
  const parts = s.split(sep);
  if (s === '') return parts;
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/** How Canton quotes a long key or segment in a message: the first 50 characters and `...`. */
const shorten = (s: string) => (s.length > 53 ? `${s.slice(0, 50)}...` : s);

/** Why `key` is not a valid annotation key, or null if it is. Keys are `[prefix/]name`; linear in the key's length. */
export function annotationKeyProblem(key: string): string | null {
  const parts = javaSplit(key, '/');
  if (parts.length === 0 || parts.length > 2)
    return `Key '${shorten(key)}' contains more than one forward slash ('/') character`;
  const [prefix, name] = parts.length === 2 ? parts : [null, parts[0]];
  if (prefix !== null) {
    if (prefix.length > MAX_PREFIX)
      return `Key prefix segment '${shorten(prefix)}' exceeds maximum length of ${MAX_PREFIX} characters`;
    if (!isAnnotationKeyPrefix(prefix)) return `Key prefix segment '${shorten(prefix)}' has invalid syntax`;
  }
  if (name.length > MAX_NAME)
    return `Key name segment '${shorten(name)}' exceeds maximum length of ${MAX_NAME} characters`;
  if (!isAnnotationKeyName(name)) return `Key name segment '${shorten(name)}' has invalid syntax`;
  return null;
}

/** UTF-8 bytes of all keys and values; entries with an empty value (deletions) do not count. */
export function annotationsSize(annotations: Record<string, string>): number {
  let total = 0;
  for (const [k, v] of Object.entries(annotations)) {
    if (v === '') continue;
    total += Buffer.byteLength(k, 'utf8') + Buffer.byteLength(v, 'utf8');
  }
  return total;
}

export const annotationsTooLarge = (annotations: Record<string, string>) =>
  annotationsSize(annotations) > MAX_ANNOTATIONS_SIZE_BYTES;

/**
 * Request-level validation: size first, then every key (also keys whose value is empty: deletions are checked too), then,
 * when `allowEmptyValues` is false (allocation), values must be non-empty. Violations are INVALID_ARGUMENT.
 */
export function validateRequestAnnotations(
  annotations: Record<string, string>,
  opts: { field: string; allowEmptyValues: boolean },
): void {
  if (annotationsTooLarge(annotations)) {
    throw invalidArgument(`annotations from field '${opts.field}' are larger than the limit of 256kb`);
  }
  // Every key first, then the values (Canton's order).
  for (const key of Object.keys(annotations)) {
    const problem = annotationKeyProblem(key);
    if (problem) throw invalidArgument(problem);
  }
  if (opts.allowEmptyValues) return;
  for (const [key, value] of Object.entries(annotations)) {
    if (value === '') throw invalidArgument(`The value of an annotation is empty for key: '${shorten(key)}'`);
  }
}

/** Merge, never replace: `existing ++ update`, then every entry whose value is "" is removed. Keys come out sorted. */
export function mergeAnnotations(
  existing: Record<string, string>,
  update: Record<string, string>,
): Record<string, string> {
  const merged: Record<string, string> = { ...existing, ...update };
  const out: Record<string, string> = {};
  for (const k of Object.keys(merged).sort()) if (merged[k] !== '') out[k] = merged[k];
  return out;
}
