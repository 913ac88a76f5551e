/**
 * Runtime values ↔ the Ledger API `Value` of `@canton-network/core-ledger-proto` (what Ledgerline stores and renders).
 * `enriched` output carries record/variant/enum ids and field labels (prepared transactions, events); `normalised`
 * output leaves them out (Canton's normalised transaction values). Input accepts either, typed against the LF type.
 */
import type { Identifier, Value } from '@canton-network/core-ledger-proto';
import { isContractId } from '@ledgerline/canton';
import type { Type, TypeConId } from '../language/ast';
import * as N from '../interpreter/numeric';
import type { CompiledPackages } from '../interpreter/packages';
import { mapFromEntries, mapToArray } from '../interpreter/smap';
import { compareText } from '../interpreter/text';
import { dateInRange, timestampInRange } from '../interpreter/time';
import { NONE, compareValues, listFromArray, listToArray, type SValue } from '../interpreter/values';
import { MAXIMUM_NESTING, ValueErrorSignal, invalidArgument, preprocessingFailed, type Decoded } from './errors';
import { parseNumericText } from './json';
import { TypeViewError, instantiate, viewType } from './types';

export interface ToProtoOptions {
  /** Record ids, field labels, variant and enum ids (true: enriched, the default) or none (normalised). */
  readonly enriched?: boolean;
}

const identifier = (id: TypeConId): Identifier => ({
  packageId: id.packageId,
  moduleName: id.module,
  entityName: id.name,
});

/** A runtime value → proto Value. Iterative over lists; nesting is bounded by the LF type. */
export function valueToProto(v: SValue, options: ToProtoOptions = {}): Value {
  const enriched = options.enriched ?? true;
  let depth = 0;
  const go = (x: SValue): Value => {
    if (++depth > MAXIMUM_NESTING + 1)
      throw invalidArgument(`Provided value exceeds maximum nesting level of ${MAXIMUM_NESTING}`);
    try {
      return node(x);
    } finally {
      depth--;
    }
  };
  const node = (x: SValue): Value => {
    switch (x.t) {
      case 'unit':
        return { sum: { oneofKind: 'unit', unit: {} } };
      case 'bool':
        return { sum: { oneofKind: 'bool', bool: x.v } };
      case 'int64':
        return { sum: { oneofKind: 'int64', int64: x.v.toString() } };
      case 'numeric':
        return { sum: { oneofKind: 'numeric', numeric: N.toScaledString(x.v) } };
      case 'text':
        return { sum: { oneofKind: 'text', text: x.v } };
      case 'party':
        return { sum: { oneofKind: 'party', party: x.v } };
      case 'cid':
        return { sum: { oneofKind: 'contractId', contractId: x.v } };
      case 'date':
        return { sum: { oneofKind: 'date', date: x.v } };
      case 'timestamp':
        return { sum: { oneofKind: 'timestamp', timestamp: x.v.toString() } };
      case 'optional':
        return { sum: { oneofKind: 'optional', optional: x.v === null ? {} : { value: go(x.v) } } };
      case 'list':
        return { sum: { oneofKind: 'list', list: { elements: listToArray(x.v).map(go) } } };
      case 'textmap':
        return {
          sum: { oneofKind: 'textMap', textMap: { entries: mapToArray(x.v, (key, e) => ({ key, value: go(e) })) } },
        };
      case 'genmap':
        return {
          sum: { oneofKind: 'genMap', genMap: { entries: mapToArray(x.v, (k, e) => ({ key: go(k), value: go(e) })) } },
        };
      case 'record':
        return {
          sum: {
            oneofKind: 'record',
            record: {
              ...(enriched ? { recordId: identifier(x.id) } : {}),
              fields: x.v.map((e, i) => ({ label: enriched ? x.f[i] : '', value: go(e) })),
            },
          },
        };
      case 'variant':
        return {
          sum: {
            oneofKind: 'variant',
            variant: { ...(enriched ? { variantId: identifier(x.id) } : {}), constructor: x.con, value: go(x.v) },
          },
        };
      case 'enum':
        return {
          sum: { oneofKind: 'enum', enum: { ...(enriched ? { enumId: identifier(x.id) } : {}), constructor: x.con } },
        };
      default:
        throw new ValueErrorSignal({ code: 'INVALID_ARGUMENT', message: `a ${x.t} is not a serializable value` });
    }
  };
  return go(v);
}

/**
 * A record, variant or enum id given with a value must name the expected type; its package id is ignored, so a value
 * labelled with another version of the package (an upgrade) is accepted (Canton's `ValueTranslator.checkUserTypeId`,
 * whose message says "variant id" for all three).
 */
function checkUserTypeId(i: Identifier | undefined, id: TypeConId): void {
  if (!i || (i.moduleName === id.module && i.entityName === id.name)) return;
  throw preprocessingFailed(
    `Mismatching variant id, the type tells us ${id.module}:${id.name}, but the value tells us ${i.moduleName}:${i.entityName}`,
  );
}

class ProtoDecoder {
  constructor(private readonly pkgs: CompiledPackages) {}

  private mismatch(t: Type, v: Value): ValueErrorSignal {
    return preprocessingFailed(`mismatching type: ${describe(t)} and value: ${v.sum.oneofKind ?? 'unset'}`);
  }

  decode(t: Type, v: Value | undefined, depth: number): SValue {
    if (!v) throw invalidArgument('Missing field value');
    if (depth > MAXIMUM_NESTING)
      throw invalidArgument(`Provided value exceeds maximum nesting level of ${MAXIMUM_NESTING}`);
    const tv = viewType(this.pkgs, t);
    const s = v.sum;
    if (tv.k === 'con') {
      const cons = tv.cons;
      if (cons.tag === 'record' && s.oneofKind === 'record') {
        checkUserTypeId(s.record.recordId, tv.id);
        const fields = s.record.fields;
        const labelled = fields.some((f) => f.label);
        const values = cons.fields.map((f, i) => {
          const ft = instantiate(tv, f.type);
          const src = labelled ? fields.find((x) => x.label === f.field) : fields[i];
          if (!src) {
            const ftv = viewType(this.pkgs, ft);
            if (ftv.k === 'builtin' && ftv.builtin === 'OPTIONAL') return NONE;
            throw preprocessingFailed(`Missing non-optional field "${f.field}"`);
          }
          return this.decode(ft, src.value, depth + 1);
        });
        if (labelled) {
          const extra = fields.find((x) => x.label && !cons.fields.some((f) => f.field === x.label));
          if (extra) throw preprocessingFailed(`Unexpected field "${extra.label}"`);
        } else if (fields.length > cons.fields.length) throw preprocessingFailed('Unexpected extra record fields');
        return { t: 'record', id: tv.id, f: cons.fields.map((f) => f.field), v: values };
      }
      if (cons.tag === 'variant' && s.oneofKind === 'variant') {
        checkUserTypeId(s.variant.variantId, tv.id);
        const rank = cons.constructors.findIndex((c) => c.field === s.variant.constructor);
        if (rank < 0) throw preprocessingFailed(`Unknown variant constructor ${s.variant.constructor}`);
        return {
          t: 'variant',
          id: tv.id,
          con: s.variant.constructor,
          rank,
          v: this.decode(instantiate(tv, cons.constructors[rank].type), s.variant.value, depth + 1),
        };
      }
      if (cons.tag === 'enum' && s.oneofKind === 'enum') {
        checkUserTypeId(s.enum.enumId, tv.id);
        const rank = cons.constructors.indexOf(s.enum.constructor);
        if (rank < 0) throw preprocessingFailed(`Unknown enum constructor ${s.enum.constructor}`);
        return { t: 'enum', id: tv.id, con: s.enum.constructor, rank };
      }
      throw this.mismatch(t, v);
    }
    if (tv.k !== 'builtin') throw this.mismatch(t, v);
    const a = tv.args;
    switch (tv.builtin) {
      case 'UNIT':
        if (s.oneofKind === 'unit') return { t: 'unit' };
        break;
      case 'BOOL':
        if (s.oneofKind === 'bool') return { t: 'bool', v: s.bool };
        break;
      case 'INT64':
        if (s.oneofKind === 'int64') return { t: 'int64', v: BigInt(s.int64) };
        break;
      case 'TEXT':
        if (s.oneofKind === 'text') return { t: 'text', v: s.text };
        break;
      case 'PARTY':
        if (s.oneofKind === 'party') return { t: 'party', v: s.party };
        break;
      case 'CONTRACT_ID':
        if (s.oneofKind === 'contractId') {
          if (!isContractId(s.contractId)) throw invalidArgument(`cannot parse ContractId "${s.contractId}"`);
          return { t: 'cid', v: s.contractId };
        }
        break;
      case 'DATE':
        if (s.oneofKind === 'date') {
          if (!dateInRange(s.date)) throw invalidArgument(`out of bound Date ${s.date}`);
          return { t: 'date', v: s.date };
        }
        break;
      case 'TIMESTAMP':
        if (s.oneofKind === 'timestamp') {
          const us = BigInt(s.timestamp);
          if (!timestampInRange(us))
            throw invalidArgument(`cannot convert long ${us} into Timestamp:out of bound Timestamp ${us}`);
          return { t: 'timestamp', v: us };
        }
        break;
      case 'NUMERIC': {
        if (s.oneofKind !== 'numeric') break;
        const sc = a[0] && viewType(this.pkgs, a[0]);
        if (!sc || sc.k !== 'nat') throw preprocessingFailed('Numeric type without a scale');
        return parseNumericText(s.numeric, sc.value);
      }
      case 'OPTIONAL':
        if (s.oneofKind === 'optional')
          return s.optional.value ? { t: 'optional', v: this.decode(a[0], s.optional.value, depth + 1) } : NONE;
        break;
      case 'LIST':
        if (s.oneofKind === 'list') return listFromArray(s.list.elements.map((e) => this.decode(a[0], e, depth + 1)));
        break;
      case 'TEXTMAP':
        if (s.oneofKind === 'textMap') {
          const entries = s.textMap.entries.map((e) => [e.key, this.decode(a[0], e.value, depth + 1)] as const);
          return { t: 'textmap', v: mapFromEntries(entries, compareText) };
        }
        break;
      case 'GENMAP':
        if (s.oneofKind === 'genMap') {
          const entries = s.genMap.entries.map(
            (e) => [this.decode(a[0], e.key, depth + 1), this.decode(a[1], e.value, depth + 1)] as const,
          );
          return { t: 'genmap', v: mapFromEntries(entries, compareValues) };
        }
        break;
      default:
        break;
    }
    throw this.mismatch(t, v);
  }
}

function describe(t: Type): string {
  switch (t.tag) {
    case 'builtin':
      return t.args.length ? `${t.builtin} ${t.args.map(describe).join(' ')}` : t.builtin;
    case 'con':
      return `${t.tycon.packageId}:${t.tycon.module}:${t.tycon.name}`;
    case 'nat':
      return String(t.value);
    default:
      return t.tag;
  }
}

/** A proto Value (labelled or not) → a typed runtime value of `type`. */
export function protoToValue(pkgs: CompiledPackages, type: Type, value: Value): Decoded<SValue> {
  try {
    return { ok: true, value: new ProtoDecoder(pkgs).decode(type, value, 0) };
  } catch (e) {
    if (e instanceof ValueErrorSignal) return { ok: false, error: e.error };
    if (e instanceof TypeViewError || (e instanceof Error && e.name === 'SyntaxError'))
      return { ok: false, error: { code: 'INVALID_ARGUMENT', message: e.message } };
    if (e && typeof e === 'object' && 'error' in e)
      return {
        ok: false,
        error: {
          code: 'COMMAND_PREPROCESSING_FAILED',
          message: String((e as { error: { message?: string } }).error.message),
        },
      };
    throw e;
  }
}

/** Wraps valueToProto for values that may contain non-serializable parts. */
export function tryValueToProto(v: SValue, options?: ToProtoOptions): Decoded<Value> {
  try {
    return { ok: true, value: valueToProto(v, options) };
  } catch (e) {
    if (e instanceof ValueErrorSignal) return { ok: false, error: e.error };
    throw e;
  }
}
