import { jsonInvalidArgument } from '@ledgerline/domain';

/**
 * Text PostgreSQL cannot store: U+0000 (refused by `text` and `jsonb` alike) and UTF-16 surrogates that are not part of a
 * pair (refused by `jsonb`, through which the writer sends every row). A request carrying either would fail its writer
 * batch; it is refused as INVALID_ARGUMENT before it reaches the ledger.
 */
// eslint-disable-next-line no-control-regex
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The first character PostgreSQL cannot store in `s`, as `U+XXXX`, or null. */
export function unstorableCharacter(s: string): string | null {
  const m = UNSTORABLE.exec(s);
  return m ? `U+${m[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}` : null;
}

/** Where in a JSON value (keys included) a string PostgreSQL cannot store sits, e.g. `commands[0].args.note`; null if none. */
function findUnstorable(value: unknown, path: string, depth: number): { path: string; char: string } | null {
  if (typeof value === 'string') {
    const char = unstorableCharacter(value);
    return char ? { path: path || '(root)', char } : null;
  }
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value) || depth > 1000) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findUnstorable(value[i], `${path}[${i}]`, depth + 1);
      if (hit) return hit;
    }
    return null;
  }
  for (const [k, v] of Object.entries(value)) {
    const at = path ? `${path}.${k}` : k;
    const char = unstorableCharacter(k);
    if (char) return { path: at, char };
    const hit = findUnstorable(v, at, depth + 1);
    if (hit) return hit;
  }
  return null;
}

/**
 * Refuses a parsed JSON body holding text PostgreSQL cannot store (INVALID_ARGUMENT, 400). `text` is the body as sent:
 * JSON can only carry such characters as `\u` escapes (or, for surrogates, never as raw UTF-8), so a body without `\u`
 * is not walked.
 */
export function assertStorableJson(text: string, value: unknown): void {
  if (!text.includes('\\u')) return;
  const hit = findUnstorable(value, '', 0);
  if (hit) throw unstorableText(hit.path, hit.char);
}

/** Refuses a decoded message (a prepared transaction) holding a string PostgreSQL cannot store; `field` names it. */
export function assertStorableMessage(field: string, value: unknown): void {
  const hit = findUnstorable(value, '', 0);
  if (hit) throw unstorableText(`${field}.${hit.path}`, hit.char);
}

/** Refuses one string (a path or query parameter, a decoded protobuf field) PostgreSQL cannot store. */
export function assertStorableText(field: string, s: string): void {
  const char = unstorableCharacter(s);
  if (char) throw unstorableText(field, char);
}

export const unstorableText = (field: string, char: string) =>
  jsonInvalidArgument(`The field ${field} contains the character ${char}, which this participant cannot store`);
