/**
 * Typed values both ways: JSON as Canton's JSON API codec reads and writes it (`JsonCodec.scala`, errors as
 * `Endpoints.scala` maps them), and runtime values ↔ Ledger API proto values (enriched and normalised).
 */
import { describe, expect, it } from 'vitest';
import { CompiledPackages, jsonToValue, protoToValue, valueToJson, valueToProto, type Type } from '@ledgerline/daml-lf';
import { T, byName, dataType, module, pkg, qn, record, tcon, tnat, tvar, tb } from './ast-builders';

const M = 'Test.Values';
const recId = qn(M, 'Rec');
const colorId = qn(M, 'Color');
const shapeId = qn(M, 'Shape');
const boxId = qn(M, 'Box');

const pkgs = new CompiledPackages([
  pkg([
    module(M, {
      dataTypes: byName(
        record('Rec', [
          ['p', T.party],
          ['n', T.num(10)],
          ['i', T.int],
          ['t', T.text],
          ['d', T.date],
          ['ts', T.time],
          ['o', T.opt(T.int)],
          ['oo', T.opt(T.opt(T.int))],
          ['l', T.list(T.int)],
          ['tm', T.textMap(T.int)],
          ['gm', T.genMap(T.text, T.int)],
          ['s', tcon(shapeId)],
          ['c', tcon(colorId)],
          ['u', T.unit],
          ['b', T.bool],
          ['cid', T.cid(tcon(recId))],
          ['last', T.opt(T.text)],
        ]),
        dataType('Color', { tag: 'enum', constructors: ['Red', 'Green'] }),
        dataType('Shape', {
          tag: 'variant',
          constructors: [
            { field: 'Circle', type: T.num(2) },
            { field: 'Nothing', type: T.unit },
          ],
        }),
        dataType('Box', { tag: 'record', fields: [{ field: 'content', type: tvar('a') }] }, ['a']),
      ),
    }),
  ]),
]);

const CID = '00' + 'ab'.repeat(32);
const good = {
  p: 'alice::1220abcd',
  n: '1.5',
  i: '-42',
  t: 'héllo',
  d: '2024-02-29',
  ts: '2025-08-07T02:35:09.899822Z',
  o: '7',
  oo: [[]],
  l: ['1', '2'],
  tm: { b: '2', a: '1' },
  gm: [
    ['z', '26'],
    ['a', '1'],
  ],
  s: { tag: 'Circle', value: 3.25 },
  c: 'Green',
  u: {},
  b: true,
  cid: CID,
};
const rec: Type = tcon(recId);

describe('JSON → LF', () => {
  it('reads every kind of value as Canton’s JSON API encodes it', () => {
    const r = jsonToValue(pkgs, rec, good);
    expect(r.ok).toBe(true);
    const out = r.ok && valueToJson(pkgs, rec, r.value);
    expect(out && out.ok && out.value).toEqual({
      ...good,
      n: '1.5000000000',
      tm: { a: '1', b: '2' },
      gm: [
        ['a', '1'],
        ['z', '26'],
      ],
      s: { tag: 'Circle', value: '3.25' },
    });
  });

  it('numeric accepts strings and JSON numbers; int64 only strings', () => {
    expect(jsonToValue(pkgs, T.num(10), 2).ok).toBe(true);
    expect(jsonToValue(pkgs, T.num(10), '-0.0000000001').ok).toBe(true);
    expect(jsonToValue(pkgs, T.int, 5)).toEqual({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', message: 'Expected ujson.Str (data: 5)' },
    });
    expect(jsonToValue(pkgs, T.int, '9223372036854775808')).toEqual({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', message: 'For input string: "9223372036854775808"' },
    });
  });

  it('refuses numerics that do not fit the scale, with the engine’s messages', () => {
    expect(jsonToValue(pkgs, T.num(2), '1.234')).toEqual({
      ok: false,
      error: {
        code: 'COMMAND_PREPROCESSING_FAILED',
        message: 'Cannot represent 1.234 as (Numeric 2) without loss of precision',
      },
    });
    expect(jsonToValue(pkgs, T.num(10), '1e5')).toEqual({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', message: 'Could not read Numeric string "1e5"' },
    });
    expect(jsonToValue(pkgs, T.num(10), '1' + '0'.repeat(28))).toEqual({
      ok: false,
      error: { code: 'COMMAND_PREPROCESSING_FAILED', message: `Out-of-bounds (Numeric 10) 1${'0'.repeat(28)}.` },
    });
  });

  it('missing non-optional fields → COMMAND_PREPROCESSING_FAILED; unexpected fields → INVALID_ARGUMENT', () => {
    const missing: Record<string, unknown> = { ...good };
    delete missing.p;
    delete missing.t;
    expect(jsonToValue(pkgs, rec, missing)).toEqual({
      ok: false,
      error: { code: 'COMMAND_PREPROCESSING_FAILED', message: 'Missing non-optional fields: Set(p, t)' },
    });
    expect(jsonToValue(pkgs, rec, { ...good, extra: 1, more: 'x', ignored: null })).toEqual({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', message: 'Unexpected fields: extramore' },
    });
    // optional fields may be missing or null
    const withoutOptionals: Record<string, unknown> = { ...good, last: null };
    delete withoutOptionals.o;
    expect(jsonToValue(pkgs, rec, withoutOptionals).ok).toBe(true);
  });

  it('variants need tag and value; enums and tags must exist', () => {
    expect(jsonToValue(pkgs, tcon(shapeId), { tag: 'Circle' })).toEqual({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', message: "Variant type json must have 'tag' and 'value' fields." },
    });
    expect(jsonToValue(pkgs, tcon(shapeId), { tag: 'Square', value: 1 })).toEqual({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', message: 'Unexpected variant tag: Square' },
    });
    expect(jsonToValue(pkgs, tcon(colorId), 'Blue').ok).toBe(false);
  });

  it('nested optionals use [] and [x] at every level', () => {
    const oo = T.opt(T.opt(T.int));
    const ooo = T.opt(T.opt(T.opt(T.int)));
    for (const [t, j] of [
      [oo, null],
      [oo, []],
      [oo, [[]]],
      [oo, [['5']]],
      [ooo, [[['5']]]],
      [ooo, [[[]]]],
      [ooo, [[]]],
    ] as [Type, unknown][]) {
      const r = jsonToValue(pkgs, t, j);
      expect(r.ok).toBe(true);
      const back = r.ok && valueToJson(pkgs, t, r.value);
      expect(back && back.ok && back.value).toEqual(j === null ? [] : j);
    }
    expect(jsonToValue(pkgs, oo, '5').ok).toBe(false);
  });

  it('records of type parameters are instantiated', () => {
    const box = tcon(boxId, T.num(2));
    const r = jsonToValue(pkgs, box, { content: '3.14' });
    const back = r.ok && valueToJson(pkgs, box, r.value);
    expect(back && back.ok && back.value).toEqual({ content: '3.14' });
    void tb;
    void tnat;
  });

  it('dates, timestamps, parties and contract ids are checked', () => {
    expect(jsonToValue(pkgs, T.date, '2023-02-29').ok).toBe(false);
    expect(jsonToValue(pkgs, T.date, '10000-01-01').ok).toBe(false);
    expect(jsonToValue(pkgs, T.time, '2025-01-01T00:00:00').ok).toBe(false);
    const ts = jsonToValue(pkgs, T.time, '2025-01-01T01:00+01:00');
    expect(ts.ok && ts.value).toEqual({ t: 'timestamp', v: 1735689600000000n });
    const sub = jsonToValue(pkgs, T.time, '1970-01-01T00:00:00.0000019Z');
    expect(sub.ok && sub.value).toEqual({ t: 'timestamp', v: 1n });
    expect(jsonToValue(pkgs, T.party, 'bad%char')).toEqual({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', message: 'non expected character 0x25 in Daml-LF Party "bad%char"' },
    });
    expect(jsonToValue(pkgs, T.cid(rec), 'nope').ok).toBe(false);
  });

  it('renders timestamps as ISO_DATE_TIME and drops trailing None fields', () => {
    const r = jsonToValue(pkgs, rec, { ...good, ts: '2025-08-07T02:35:09.5Z', last: null });
    const back = r.ok && valueToJson(pkgs, rec, r.value);
    const j = back && back.ok ? (back.value as Record<string, unknown>) : {};
    expect(j.ts).toBe('2025-08-07T02:35:09.5Z');
    expect('last' in j).toBe(false);
    expect(j.o).toBe('7');
  });

  it('refuses values nested more than 100 levels', () => {
    let t: Type = T.int;
    let j: unknown = '1';
    for (let i = 0; i < 101; i++) {
      t = T.list(t);
      j = [j];
    }
    expect(jsonToValue(pkgs, t, j)).toEqual({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', message: 'Provided value exceeds maximum nesting level of 100' },
    });
  });
});

describe('runtime ↔ proto Value', () => {
  const decoded = jsonToValue(pkgs, rec, good);
  const v = decoded.ok ? decoded.value : (undefined as never);

  it('enriched output carries ids and labels, normalised output none', () => {
    const enriched = valueToProto(v);
    expect(enriched.sum.oneofKind === 'record' && enriched.sum.record.recordId).toEqual({
      packageId: recId.packageId,
      moduleName: M,
      entityName: 'Rec',
    });
    expect(enriched.sum.oneofKind === 'record' && enriched.sum.record.fields.map((f) => f.label).slice(0, 3)).toEqual([
      'p',
      'n',
      'i',
    ]);
    const n = enriched.sum.oneofKind === 'record' && enriched.sum.record.fields[1].value;
    expect(n && n.sum).toEqual({ oneofKind: 'numeric', numeric: '1.5000000000' });
    const normalised = valueToProto(v, { enriched: false });
    expect(normalised.sum.oneofKind === 'record' && normalised.sum.record.recordId).toBeUndefined();
    expect(normalised.sum.oneofKind === 'record' && normalised.sum.record.fields.every((f) => f.label === '')).toBe(
      true,
    );
  });

  it('reads both forms back to the same value', () => {
    for (const enriched of [true, false]) {
      const back = protoToValue(pkgs, rec, valueToProto(v, { enriched }));
      expect(back).toEqual({ ok: true, value: v });
    }
  });

  it("ignores a record id's package id (another version of the package) but refuses another type's id", () => {
    const enriched = valueToProto(v);
    if (enriched.sum.oneofKind !== 'record') throw new Error('not a record');
    const record = enriched.sum.record;
    const withId = (recordId: { packageId: string; moduleName: string; entityName: string }) =>
      protoToValue(pkgs, rec, { sum: { oneofKind: 'record', record: { ...record, recordId } } });
    expect(withId({ packageId: 'f'.repeat(64), moduleName: M, entityName: 'Rec' })).toEqual({ ok: true, value: v });
    expect(withId({ packageId: recId.packageId, moduleName: M, entityName: 'Other' })).toEqual({
      ok: false,
      error: {
        code: 'COMMAND_PREPROCESSING_FAILED',
        message: `Mismatching variant id, the type tells us ${M}:Rec, but the value tells us ${M}:Other`,
      },
    });
  });

  it('refuses a value of the wrong type', () => {
    const r = protoToValue(pkgs, T.int, { sum: { oneofKind: 'text', text: 'x' } });
    expect(r.ok === false && r.error.code).toBe('COMMAND_PREPROCESSING_FAILED');
  });
});
