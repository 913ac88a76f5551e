import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Value } from '@canton-network/core-ledger-proto';
import { formatDate, formatTimestampMicros, jsonToValue, valueToJson } from '@ledgerline/canton';
import { ALICE, everyValueKind, hex64 } from './fixtures';

describe('valueToJson (Daml-LF JSON)', () => {
  it('renders every value kind', () => {
    expect(valueToJson(everyValueKind('9007199254740993'))).toEqual({
      unit: {},
      bool: true,
      int64: '9007199254740993',
      numeric: '-12.3400000000',
      timestamp: '2026-01-01T00:00:00.123456Z',
      date: '2026-01-01',
      party: `bob::1220${hex64('bob')}`,
      text: 'héllo ✓ 𝄞',
      cid: '00' + hex64('cid-x') + 'ca10',
      none: null,
      some: 'x',
      someNone: [],
      list: ['a', 'b'],
      emptyList: [],
      textMap: { k: ALICE },
      genMap: [['-1', 'minus one']],
      positional: { _1: 'p1', _2: false },
      variant: { tag: 'Circle', value: 'r=1' },
      variantNoId: { tag: 'Unit', value: {} },
      enum: 'Red',
      enumNoId: 'Blue',
    });
  });

  it('nested optionals: Some(None) → [], Some(Some(x)) → [x], Some(Some(None)) → [[]]', () => {
    const none: Value = { sum: { oneofKind: 'optional', optional: {} } };
    const some = (value: Value): Value => ({ sum: { oneofKind: 'optional', optional: { value } } });
    const t: Value = { sum: { oneofKind: 'text', text: 't' } };
    expect(valueToJson(none)).toBeNull();
    expect(valueToJson(some(t))).toBe('t');
    expect(valueToJson(some(none))).toEqual([]);
    expect(valueToJson(some(some(t)))).toEqual(['t']);
    expect(valueToJson(some(some(none)))).toEqual([[]]);
  });

  it('dates and timestamps', () => {
    expect(formatDate(0)).toBe('1970-01-01');
    expect(formatDate(-1)).toBe('1969-12-31');
    expect(formatDate(-719162)).toBe('0001-01-01');
    expect(formatDate(2932896)).toBe('9999-12-31');
    expect(formatTimestampMicros(0n)).toBe('1970-01-01T00:00:00Z');
    expect(formatTimestampMicros(1_000n)).toBe('1970-01-01T00:00:00.001Z');
    expect(formatTimestampMicros(1n)).toBe('1970-01-01T00:00:00.000001Z');
    expect(formatTimestampMicros(-1n)).toBe('1969-12-31T23:59:59.999999Z');
    expect(formatTimestampMicros('1746093600123456')).toBe('2025-05-01T10:00:00.123456Z');
    // agrees with Date for millisecond values
    fc.assert(
      fc.property(fc.integer({ min: -62135596800000, max: 253402300799999 }), (ms) => {
        const iso = new Date(ms).toISOString().replace('.000Z', 'Z');
        expect(formatTimestampMicros(BigInt(ms) * 1000n)).toBe(iso);
      }),
    );
  });
});

describe('jsonToValue', () => {
  const isParty = (s: string) => s === ALICE;

  it('maps JSON types to Daml values', () => {
    expect(
      jsonToValue({ owner: ALICE, text: 'hello', n: 3, x: 1.5, ok: true, none: null, xs: [1, 'a'] }, isParty),
    ).toEqual({
      sum: {
        oneofKind: 'record',
        record: {
          fields: [
            { label: 'owner', value: { sum: { oneofKind: 'party', party: ALICE } } },
            { label: 'text', value: { sum: { oneofKind: 'text', text: 'hello' } } },
            { label: 'n', value: { sum: { oneofKind: 'int64', int64: '3' } } },
            { label: 'x', value: { sum: { oneofKind: 'numeric', numeric: '1.5' } } },
            { label: 'ok', value: { sum: { oneofKind: 'bool', bool: true } } },
            { label: 'none', value: { sum: { oneofKind: 'optional', optional: {} } } },
            {
              label: 'xs',
              value: {
                sum: {
                  oneofKind: 'list',
                  list: {
                    elements: [{ sum: { oneofKind: 'int64', int64: '1' } }, { sum: { oneofKind: 'text', text: 'a' } }],
                  },
                },
              },
            },
          ],
        },
      },
    });
    expect(jsonToValue(1e-7)).toEqual({ sum: { oneofKind: 'numeric', numeric: '0.0000001' } });
    expect(jsonToValue(1.5e-10)).toEqual({ sum: { oneofKind: 'numeric', numeric: '0.00000000015' } });
    expect(jsonToValue(-2.5e-8)).toEqual({ sum: { oneofKind: 'numeric', numeric: '-0.000000025' } });
    expect(jsonToValue(1234567890123456789n)).toEqual({ sum: { oneofKind: 'int64', int64: '1234567890123456789' } });
    expect(() => jsonToValue(2n ** 64n)).toThrow(/int64/);
    expect(() => jsonToValue(Number.NaN)).toThrow();
    expect(jsonToValue(ALICE)).toEqual({ sum: { oneofKind: 'text', text: ALICE } });
  });

  it('round-trips JSON made of records, lists, strings, booleans and integers', () => {
    const key = fc.string({ minLength: 1, maxLength: 5 }).filter((k) => k !== '__proto__');
    const json = fc.letrec((tie) => ({
      j: fc.oneof(
        { depthSize: 'small' },
        fc.string(),
        fc.boolean(),
        fc.integer(),
        fc.array(tie('j'), { maxLength: 3 }),
        fc.dictionary(key, tie('j'), { maxKeys: 3 }).filter((o) => Object.keys(o).length > 0),
      ),
    })).j;
    fc.assert(
      fc.property(json, (j) => {
        const back = valueToJson(jsonToValue(j));
        expect(back).toEqual(typeof j === 'number' ? String(j) : normalizeInts(j));
      }),
    );
  });
});

function normalizeInts(j: unknown): unknown {
  if (typeof j === 'number') return String(j);
  if (Array.isArray(j)) return j.map(normalizeInts);
  if (j && typeof j === 'object') return Object.fromEntries(Object.entries(j).map(([k, v]) => [k, normalizeInts(v)]));
  return j;
}
