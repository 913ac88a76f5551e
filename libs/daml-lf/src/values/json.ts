/**
 * Typed JSON ↔ Daml-LF values, as Canton's JSON Ledger API v2 encodes them (`transcode/codec-json/…/JsonCodec.scala` with
 * `removeTrailingNonesInRecords`, then the Ledger API's value validation and the engine's preprocessing):
 *
 * - record: a JSON object by field name; missing optional fields are None, missing others →
 *   COMMAND_PREPROCESSING_FAILED "Missing non-optional fields: Set(a, b)"; unknown non-null fields → INVALID_ARGUMENT
 *   "Unexpected fields: …"; on output trailing None fields are left out.
 * - variant `{"tag": C, "value": v}`; enum: the constructor name; unit: `{}` (any JSON accepted, as Canton ignores it).
 * - optional: null / the value; nested optionals: `[]` (None) / `[inner]` (Some).
 * - list: array; TextMap: object; GenMap: array of `[key, value]` pairs.
 * - Int64: a string (Canton encodes Int64 as strings and reads only strings); Numeric: a string or a JSON number, then
 *   the Ledger API's pattern `[+-]?\d{1,38}(\.\d{0,37})?` and an exact fit at the type's scale.
 * - Date `YYYY-MM-DD`; Timestamp ISO-8601 with an offset (sub-microsecond digits truncated); Party; ContractId.
 *
 * Where Canton's JSON layer answers a malformed shape with an internal error (a `ujson` type error), Ledgerline answers
 * INVALID_ARGUMENT with the same text (no 5xx for client input).
 */
import { isContractId } from '@ledgerline/canton';
import type { Type } from '../language/ast';
import { Failure } from '../interpreter/errors';
import * as N from '../interpreter/numeric';
import type { CompiledPackages } from '../interpreter/packages';
import { mapFromEntries, mapToArray } from '../interpreter/smap';
import { compareText, isParty } from '../interpreter/text';
import {
  dateInRange,
  dateToText,
  parseDate,
  parseTimestamp,
  timestampInRange,
  timestampToIsoDateTime,
} from '../interpreter/time';
import { NONE, compareValues, listFromArray, listToArray, type SValue } from '../interpreter/values';
import { MAXIMUM_NESTING, ValueErrorSignal, invalidArgument, preprocessingFailed, type Decoded } from './errors';
import { TypeViewError, instantiate, viewType, type TypeView } from './types';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };

const render = (j: unknown) => {
  try {
    return JSON.stringify(j);
  } catch {
    return String(j);
  }
};
const expected = (what: 'Obj' | 'Str' | 'Arr' | 'Bool', j: unknown) =>
  invalidArgument(`Expected ujson.${what} (data: ${render(j)})`);
const isObj = (j: unknown): j is Record<string, unknown> => j !== null && typeof j === 'object' && !Array.isArray(j);
const scalaSet = (xs: string[]) => `Set(${xs.join(', ')})`;

const NUMERIC_PATTERN = /^[+-]?\d{1,38}(\.\d{0,37})?$/;

/** Ledger API numeric text → value of `Numeric scale` (ValueValidator, then the engine's exact conversion). */
export function parseNumericText(text: string, scale: number): SValue {
  if (!NUMERIC_PATTERN.test(text)) throw invalidArgument(`Could not read Numeric string "${text}"`);
  const lit = N.fromLiteral(text.startsWith('+') ? text.slice(1) : text);
  const stripped = N.strip(lit);
  if (stripped.s > N.MAX_SCALE || !N.fits(stripped.u)) throw invalidArgument(`Could not read Numeric string "${text}"`);
  const r = N.cast(scale, lit);
  if (!r) {
    const exact = N.cast(Math.max(stripped.s, 0), lit);
    const shown = exact ? N.toScaledString(exact) : text;
    if (stripped.s > scale)
      throw preprocessingFailed(`Cannot represent ${shown} as (Numeric ${scale}) without loss of precision`);
    throw preprocessingFailed(`Out-of-bounds (Numeric ${scale}) ${shown}`);
  }
  return { t: 'numeric', v: r };
}

function partyOf(s: string): SValue {
  if (s.length === 0) throw invalidArgument('Daml-LF Party is empty');
  if (s.length > 255) throw invalidArgument(`Daml-LF Party is too long (max: 255)`);
  if (!isParty(s)) {
    const bad = [...s].find((c) => !isParty(c))!;
    throw invalidArgument(`non expected character 0x${bad.codePointAt(0)!.toString(16)} in Daml-LF Party "${s}"`);
  }
  return { t: 'party', v: s };
}

function isOptionalType(pkgs: CompiledPackages, t: Type): boolean {
  const v = viewType(pkgs, t);
  return v.k === 'builtin' && v.builtin === 'OPTIONAL';
}

class JsonDecoder {
  constructor(private readonly pkgs: CompiledPackages) {}

  decode(t: Type, j: unknown, depth: number): SValue {
    if (depth > MAXIMUM_NESTING)
      throw invalidArgument(`Provided value exceeds maximum nesting level of ${MAXIMUM_NESTING}`);
    const v = viewType(this.pkgs, t);
    if (v.k === 'con') return this.data(v, j, depth);
    if (v.k !== 'builtin')
      throw preprocessingFailed(`mismatching type: a non-serializable type and value: ${render(j)}`);
    const a = v.args;
    switch (v.builtin) {
      case 'UNIT':
        return { t: 'unit' };
      case 'BOOL':
        if (typeof j !== 'boolean') throw expected('Bool', j);
        return { t: 'bool', v: j };
      case 'TEXT':
        if (typeof j !== 'string') throw expected('Str', j);
        return { t: 'text', v: j };
      case 'INT64': {
        if (typeof j !== 'string') throw expected('Str', j);
        if (!/^[+-]?\d+$/.test(j)) throw invalidArgument(`For input string: "${j}"`);
        const i = BigInt(j);
        if (i < -(2n ** 63n) || i >= 2n ** 63n) throw invalidArgument(`For input string: "${j}"`);
        return { t: 'int64', v: i };
      }
      case 'NUMERIC': {
        const scale = this.scaleOf(a[0]);
        if (typeof j === 'number') return parseNumericText(Number.isInteger(j) ? `${j}` : String(j), scale);
        if (typeof j === 'string') return parseNumericText(j, scale);
        throw invalidArgument(`${render(j)} is not a valid numeric value`);
      }
      case 'PARTY':
        if (typeof j !== 'string') throw expected('Str', j);
        return partyOf(j);
      case 'CONTRACT_ID':
        if (typeof j !== 'string') throw expected('Str', j);
        if (!isContractId(j)) throw invalidArgument(`cannot parse ContractId "${j}"`);
        return { t: 'cid', v: j };
      case 'DATE': {
        if (typeof j !== 'string') throw expected('Str', j);
        if (!/^\d{4}-\d{2}-\d{2}$/.test(j)) throw invalidArgument(`Text '${j}' could not be parsed`);
        const d = parseDate(j);
        if (d === undefined) throw invalidArgument(`Text '${j}' could not be parsed: out of bound Date`);
        return { t: 'date', v: d };
      }
      case 'TIMESTAMP': {
        if (typeof j !== 'string') throw expected('Str', j);
        const us = parseTimestamp(j);
        if (us === undefined) throw invalidArgument(`Text '${j}' could not be parsed`);
        return { t: 'timestamp', v: us };
      }
      case 'OPTIONAL':
        return this.optional(a[0], j, depth);
      case 'LIST': {
        if (!Array.isArray(j)) throw expected('Arr', j);
        return listFromArray(j.map((x) => this.decode(a[0], x, depth + 1)));
      }
      case 'TEXTMAP': {
        if (!isObj(j)) throw expected('Obj', j);
        const entries = Object.entries(j).map(([k, x]) => [k, this.decode(a[0], x, depth + 1)] as const);
        return { t: 'textmap', v: mapFromEntries(entries, compareText) };
      }
      case 'GENMAP': {
        if (!Array.isArray(j)) throw expected('Arr', j);
        const entries: (readonly [SValue, SValue])[] = [];
        for (const e of j) {
          if (!Array.isArray(e) || e.length < 2) throw expected('Arr', e);
          entries.push([this.decode(a[0], e[0], depth + 1), this.decode(a[1], e[1], depth + 1)]);
        }
        return { t: 'genmap', v: mapFromEntries(entries, compareValues) };
      }
      default:
        throw preprocessingFailed(`mismatching type: ${v.builtin} and value: ${render(j)}`);
    }
  }

  private scaleOf(t: Type | undefined): number {
    const v = t && viewType(this.pkgs, t);
    if (!v || v.k !== 'nat') throw preprocessingFailed('Numeric type without a scale');
    return v.value;
  }

  private optional(inner: Type, j: unknown, depth: number): SValue {
    if (j === null || j === undefined) return NONE;
    if (isOptionalType(this.pkgs, inner)) return this.nestedForm(inner, j, depth);
    return { t: 'optional', v: this.decode(inner, j, depth + 1) };
  }

  /** An optional of `elem` where `elem` is itself optional: `[]` is None, `[x]` is Some(x) (x again in this form). */
  private nestedForm(elem: Type, j: unknown, depth: number): SValue {
    if (!Array.isArray(j)) throw expected('Arr', j);
    if (j.length === 0) return NONE;
    const ev = viewType(this.pkgs, elem) as Extract<TypeView, { k: 'builtin' }>;
    const e2 = ev.args[0];
    const inner = isOptionalType(this.pkgs, e2)
      ? this.nestedForm(e2, j[0], depth + 1)
      : this.simpleOptional(e2, j[0], depth + 1);
    return { t: 'optional', v: inner };
  }

  private simpleOptional(elem: Type, j: unknown, depth: number): SValue {
    if (!Array.isArray(j)) throw expected('Arr', j);
    return j.length === 0 ? NONE : { t: 'optional', v: this.decode(elem, j[0], depth + 1) };
  }

  private data(v: Extract<TypeView, { k: 'con' }>, j: unknown, depth: number): SValue {
    const cons = v.cons;
    switch (cons.tag) {
      case 'record': {
        if (!isObj(j)) throw expected('Obj', j);
        const names = cons.fields.map((f) => f.field);
        const types = cons.fields.map((f) => instantiate(v, f.type));
        const missing = names.filter((n, i) => !(n in j) && !isOptionalType(this.pkgs, types[i]));
        if (missing.length) throw preprocessingFailed(`Missing non-optional fields: ${scalaSet(missing)}`);
        const unexpected = Object.keys(j).filter((k) => j[k] !== null && !names.includes(k));
        if (unexpected.length) throw invalidArgument(`Unexpected fields: ${unexpected.join('')}`);
        const values = names.map((n, i) => this.decode(types[i], n in j ? j[n] : null, depth + 1));
        return { t: 'record', id: v.id, f: names, v: values };
      }
      case 'variant': {
        if (!isObj(j) || !('tag' in j) || !('value' in j))
          throw invalidArgument("Variant type json must have 'tag' and 'value' fields.");
        const tag = j.tag;
        if (typeof tag !== 'string') throw expected('Str', tag);
        const rank = cons.constructors.findIndex((c) => c.field === tag);
        if (rank < 0) throw invalidArgument(`Unexpected variant tag: ${tag}`);
        const arg = this.decode(instantiate(v, cons.constructors[rank].type), j.value, depth + 1);
        return { t: 'variant', id: v.id, con: tag, rank, v: arg };
      }
      case 'enum': {
        if (typeof j !== 'string') throw expected('Str', j);
        const rank = cons.constructors.indexOf(j);
        if (rank < 0) throw invalidArgument(`Unexpected enum constructor: ${j}`);
        return { t: 'enum', id: v.id, con: j, rank };
      }
      case 'interface':
        throw preprocessingFailed(`mismatching type: interface ${v.id.module}:${v.id.name} is not serializable`);
    }
  }
}

function guard<T>(f: () => T): Decoded<T> {
  try {
    return { ok: true, value: f() };
  } catch (e) {
    if (e instanceof ValueErrorSignal) return { ok: false, error: e.error };
    if (e instanceof Failure)
      return {
        ok: false,
        error: {
          code: 'COMMAND_PREPROCESSING_FAILED',
          message: e.error.tag === 'Internal' ? e.error.message : e.error.tag,
        },
      };
    if (e instanceof TypeViewError)
      return { ok: false, error: { code: 'COMMAND_PREPROCESSING_FAILED', message: e.message } };
    throw e;
  }
}

/** JSON (as the JSON Ledger API receives it) → a typed runtime value of `type`. */
export function jsonToValue(pkgs: CompiledPackages, type: Type, json: unknown): Decoded<SValue> {
  return guard(() => new JsonDecoder(pkgs).decode(type, json, 0));
}

// ------------------------------------------------------------------------------------------------------------- output

class JsonEncoder {
  constructor(private readonly pkgs: CompiledPackages) {}

  encode(t: Type, x: SValue): JsonValue {
    const v = viewType(this.pkgs, t);
    if (v.k === 'con') {
      const cons = v.cons;
      if (x.t === 'record' && cons.tag === 'record') {
        const out: [string, JsonValue][] = cons.fields.map((f, i) => [
          f.field,
          this.encode(instantiate(v, f.type), x.v[i]),
        ]);
        while (out.length && out[out.length - 1][1] === null) out.pop();
        return Object.fromEntries(out);
      }
      if (x.t === 'variant' && cons.tag === 'variant') {
        const c = cons.constructors.find((k) => k.field === x.con);
        if (!c) throw new ValueErrorSignal({ code: 'INVALID_ARGUMENT', message: `unknown constructor ${x.con}` });
        return { tag: x.con, value: this.encode(instantiate(v, c.type), x.v) };
      }
      if (x.t === 'enum') return x.con;
      throw invalidArgument(`value ${x.t} does not match ${v.id.module}:${v.id.name}`);
    }
    if (v.k !== 'builtin') throw invalidArgument('not a serializable type');
    const a = v.args;
    switch (x.t) {
      case 'unit':
        return {};
      case 'bool':
        return x.v;
      case 'text':
      case 'party':
      case 'cid':
        return x.v;
      case 'int64':
        return x.v.toString();
      case 'numeric':
        return N.toScaledString(x.v);
      case 'date':
        return dateToText(x.v);
      case 'timestamp':
        return timestampToIsoDateTime(x.v);
      case 'optional':
        if (isOptionalType(this.pkgs, a[0])) return this.nested(a[0], x);
        return x.v === null ? null : this.encode(a[0], x.v);
      case 'list':
        return listToArray(x.v).map((e) => this.encode(a[0], e));
      case 'textmap':
        return Object.fromEntries(mapToArray(x.v, (k, e) => [k, this.encode(a[0], e)]));
      case 'genmap':
        return mapToArray(x.v, (k, e) => [this.encode(a[0], k), this.encode(a[1], e)]);
      default:
        throw invalidArgument(`a ${x.t} is not a serializable value`);
    }
  }

  /** An optional of an optional `elem`: None → [], Some(y) → [y in the same form]. */
  private nested(elem: Type, x: SValue): JsonValue {
    if (x.t !== 'optional') throw invalidArgument(`a ${x.t} is not an optional`);
    if (x.v === null) return [];
    const e2 = (viewType(this.pkgs, elem) as Extract<TypeView, { k: 'builtin' }>).args[0];
    const y = x.v;
    if (y.t !== 'optional') throw invalidArgument(`a ${y.t} is not an optional`);
    if (isOptionalType(this.pkgs, e2)) return [this.nested(e2, y)];
    return [y.v === null ? [] : [this.encode(e2, y.v)]];
  }
}

/** A typed runtime value → JSON as the JSON Ledger API renders it. */
export function valueToJson(pkgs: CompiledPackages, type: Type, value: SValue): Decoded<JsonValue> {
  return guard(() => new JsonEncoder(pkgs).encode(type, value));
}

export { dateInRange, timestampInRange };
