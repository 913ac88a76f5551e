/**
 * Daml-LF JSON rendering of Ledger API `Value`s (as in `CreatedEvent.createArgument`), and the untyped reverse
 * mapping used when a command arrives as plain JSON.
 *
 * valueToJson:
 *   record → object by label (`_1`, `_2`, … when any label is missing); int64 / numeric → string;
 *   text / party / contractId → string; bool → boolean; unit → {}; date → `YYYY-MM-DD`;
 *   timestamp → ISO-8601 UTC, fraction printed like Java's `Instant.toString` (none, 3 or 6 digits);
 *   optional: None → null, Some(x) → x, except when x is itself an optional (nested optional, as Canton's
 *   compressed codec does): Some(None) → [], Some(Some(y)) → [json(Some(y))];
 *   list → array; textMap → object; genMap → array of [key, value]; variant → {tag, value}; enum → constructor.
 */
import type { Value } from '@canton-network/core-ledger-proto';
import { toInt64 } from './bytes';
import { CantonError } from './errors';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };

const MICROS_PER_DAY = 86_400_000_000n;

/** Days since 1970-01-01 → `YYYY-MM-DD` (proleptic Gregorian, years 0001–9999). */
export function formatDate(days: number): string {
  const d = new Date(days * 86_400_000);
  if (Number.isNaN(d.getTime())) throw new CantonError(`Invalid date ${days}`);
  const y = d.getUTCFullYear();
  return `${String(y).padStart(4, '0')}-${String(d.getUTCMonth() + 1).padStart(2, '0')}-${String(d.getUTCDate()).padStart(2, '0')}`;
}

/** Microseconds since the epoch → ISO-8601 UTC string (`…T10:00:00Z`, `….123Z` or `….123456Z`). */
export function formatTimestampMicros(micros: bigint | number | string): string {
  const us = toInt64(micros, 'timestamp');
  let days = us / MICROS_PER_DAY;
  let rem = us % MICROS_PER_DAY;
  if (rem < 0n) {
    rem += MICROS_PER_DAY;
    days -= 1n;
  }
  const date = formatDate(Number(days));
  const secOfDay = Number(rem / 1_000_000n);
  const frac = Number(rem % 1_000_000n);
  const hh = String(Math.floor(secOfDay / 3600)).padStart(2, '0');
  const mm = String(Math.floor((secOfDay % 3600) / 60)).padStart(2, '0');
  const ss = String(secOfDay % 60).padStart(2, '0');
  let fraction = '';
  if (frac !== 0)
    fraction = frac % 1000 === 0 ? '.' + String(frac / 1000).padStart(3, '0') : '.' + String(frac).padStart(6, '0');
  return `${date}T${hh}:${mm}:${ss}${fraction}Z`;
}

function optionalToJson(inner: Value | undefined): JsonValue {
  if (inner === undefined || inner === null) return null;
  if (inner.sum?.oneofKind === 'optional') {
    const innerInner = inner.sum.optional?.value;
    return innerInner === undefined || innerInner === null ? [] : [optionalToJson(innerInner)];
  }
  return valueToJson(inner);
}

/** Renders a proto `Value` as Daml-LF JSON (see the module comment for the rules). */
export function valueToJson(value: Value | undefined): JsonValue {
  const sum = value?.sum;
  if (!sum || sum.oneofKind === undefined) throw new CantonError('Cannot render an unset value');
  switch (sum.oneofKind) {
    case 'unit':
      return {};
    case 'bool':
      return sum.bool;
    case 'int64':
      return toInt64(sum.int64, 'int64 value').toString();
    case 'numeric':
      return sum.numeric;
    case 'timestamp':
      return formatTimestampMicros(sum.timestamp);
    case 'date':
      return formatDate(sum.date);
    case 'party':
      return sum.party;
    case 'text':
      return sum.text;
    case 'contractId':
      return sum.contractId;
    case 'optional':
      return optionalToJson(sum.optional?.value);
    case 'list':
      return (sum.list?.elements ?? []).map(valueToJson);
    case 'textMap': {
      const out: { [k: string]: JsonValue } = {};
      for (const e of sum.textMap?.entries ?? []) out[e.key] = valueToJson(e.value);
      return out;
    }
    case 'genMap':
      return (sum.genMap?.entries ?? []).map((e) => [valueToJson(e.key), valueToJson(e.value)]);
    case 'record': {
      const fields = sum.record?.fields ?? [];
      const labelled = fields.every((f) => f.label !== '');
      const out: { [k: string]: JsonValue } = {};
      fields.forEach((f, i) => {
        out[labelled ? f.label : `_${i + 1}`] = valueToJson(f.value);
      });
      return out;
    }
    case 'variant':
      return { tag: sum.variant?.constructor ?? '', value: valueToJson(sum.variant?.value) };
    case 'enum':
      return sum.enum?.constructor ?? '';
    default:
      throw new CantonError(`Unsupported value type ${(sum as { oneofKind: string }).oneofKind}`);
  }
}

/** Decimal string of a finite number, without exponent notation (shifts the digits of JS's shortest form). */
function numberToDecimalString(n: number): string {
  const s = String(n);
  const m = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/i.exec(s);
  if (!m) return s;
  const [, sign, int, frac = '', expS] = m;
  const exp = Number(expS);
  const digits = int + frac;
  const point = int.length + exp; // position of the decimal point within `digits`
  let out: string;
  if (point <= 0) out = '0.' + '0'.repeat(-point) + digits;
  else if (point >= digits.length) out = digits + '0'.repeat(point - digits.length) + '.0';
  else out = digits.slice(0, point) + '.' + digits.slice(point);
  out = out.replace(/^0+(?=\d)/, '');
  return sign + out;
}

/**
 * Untyped JSON → proto `Value` (for commands given as plain JSON): object → record (labels in key order),
 * array → list, integer number or bigint → int64, other number → numeric, boolean → bool, null/undefined →
 * optional None, string that `isKnownParty` accepts → party, other string → text.
 */
export function jsonToValue(json: unknown, isKnownParty: (s: string) => boolean = () => false): Value {
  if (json === null || json === undefined) return { sum: { oneofKind: 'optional', optional: {} } };
  switch (typeof json) {
    case 'boolean':
      return { sum: { oneofKind: 'bool', bool: json } };
    case 'bigint':
      return { sum: { oneofKind: 'int64', int64: toInt64(json).toString() } };
    case 'number':
      if (!Number.isFinite(json)) throw new CantonError(`Cannot convert ${json} to a Daml value`);
      if (Number.isInteger(json)) return { sum: { oneofKind: 'int64', int64: toInt64(BigInt(json)).toString() } };
      return { sum: { oneofKind: 'numeric', numeric: numberToDecimalString(json) } };
    case 'string':
      return isKnownParty(json)
        ? { sum: { oneofKind: 'party', party: json } }
        : { sum: { oneofKind: 'text', text: json } };
    case 'object':
      if (Array.isArray(json))
        return { sum: { oneofKind: 'list', list: { elements: json.map((x) => jsonToValue(x, isKnownParty)) } } };
      return {
        sum: {
          oneofKind: 'record',
          record: {
            fields: Object.entries(json as Record<string, unknown>).map(([label, v]) => ({
              label,
              value: jsonToValue(v, isKnownParty),
            })),
          },
        },
      };
    default:
      throw new CantonError(`Cannot convert a ${typeof json} to a Daml value`);
  }
}
