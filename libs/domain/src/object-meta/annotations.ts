import { invalidArgument } from '../errors';

/**
 * Annotations of ObjectMeta (parties, users): key syntax, value rules and the 256 KiB size limit (Canton's
 * ResourceAnnotationValidator, ledger-api-core: ledger/api/validation/).
 */
export const MAX_ANNOTATIONS_SIZE_BYTES = 256 * 1024;

const NAME_RE = /^([a-zA-Z0-9]+[a-zA-Z0-9.\-_]*)?[a-zA-Z0-9]+$/;
const PREFIX_RE = /^(([a-zA-Z0-9]+[a-zA-Z0-9-]*)?[a-zA-Z0-9]+[.])*([a-zA-Z0-9]+[a-zA-Z0-9-]*)?[a-zA-Z0-9]+$/;
const MAX_NAME = 63;
const MAX_PREFIX = 253;

/** Why `key` is not a valid annotation key, or null if it is. Keys are `[prefix/]name`. */
export function annotationKeyProblem(key: string): string | null {
  const parts = key.split('/');
  if (parts.length > 2) return `Key '${key}' contains more than one forward slash ('/') character`;
  const [prefix, name] = parts.length === 2 ? parts : [null, parts[0]];
  if (prefix !== null) {
    if (prefix.length > MAX_PREFIX) return `Key prefix segment '${prefix}' exceeds maximum length of ${MAX_PREFIX} characters`;
    if (!PREFIX_RE.test(prefix)) return `Key prefix segment '${prefix}' has invalid syntax`;
  }
  if (name.length > MAX_NAME) return `Key name segment '${name}' exceeds maximum length of ${MAX_NAME} characters`;
  if (!NAME_RE.test(name)) return `Key name segment '${name}' has invalid syntax`;
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

export const annotationsTooLarge = (annotations: Record<string, string>) => annotationsSize(annotations) > MAX_ANNOTATIONS_SIZE_BYTES;

/**
 * Request-level validation: size first, then every key (also keys whose value is empty: deletions are checked too), then,
 * when `allowEmptyValues` is false (allocation), values must be non-empty. Violations are INVALID_ARGUMENT.
 */
export function validateRequestAnnotations(annotations: Record<string, string>, opts: { field: string; allowEmptyValues: boolean }): void {
  if (annotationsTooLarge(annotations)) {
    throw invalidArgument(`annotations from field '${opts.field}' are larger than the limit of 256kb`);
  }
  for (const [key, value] of Object.entries(annotations)) {
    const problem = annotationKeyProblem(key);
    if (problem) throw invalidArgument(problem);
    if (!opts.allowEmptyValues && value === '') throw invalidArgument(`The value of an annotation is empty for key: '${key}'`);
  }
}

/** Merge, never replace: `existing ++ update`, then every entry whose value is "" is removed. Keys come out sorted. */
export function mergeAnnotations(existing: Record<string, string>, update: Record<string, string>): Record<string, string> {
  const merged: Record<string, string> = { ...existing, ...update };
  const out: Record<string, string> = {};
  for (const k of Object.keys(merged).sort()) if (merged[k] !== '') out[k] = merged[k];
  return out;
}
