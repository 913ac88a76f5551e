/**
 * TextMap and GenMap at 100,000 entries: every map builtin against a reference model (a JavaScript Map, sorted by
 * Canton's key order for the results), persistence (an update leaves its input as it was), the tree's balance, and the
 * ordering and equality of maps built in different insertion orders.
 */
import { describe, expect, it } from 'vitest';
import { BUILTINS, compareValues, lfText, listToArray, mapEntries, runtime, type SValue } from '@ledgerline/daml-lf';
import type { MapTree } from '@ledgerline/daml-lf';
import { T, call, int, lam, list, str, v, b, app } from './ast-builders';
import { evalOk, show } from './eval-helpers';

const N = 100_000;
const ops = { charge: () => undefined } as never;
const run = (name: keyof typeof BUILTINS, ...args: SValue[]): SValue => BUILTINS[name]!.run(args, ops)!;
const { text, int64 } = runtime;

/** A deterministic pseudo-random sequence (xorshift32). */
function rng(seed: number) {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

/** Keys with shared prefixes, duplicates and characters outside the BMP (ordered by code point, not UTF-16 unit). */
function keys(n: number, seed: number): string[] {
  const r = rng(seed);
  const alphabet = ['a', 'b', 'z', 'é', '\u{1F600}', '\uFFFD', '0'];
  return Array.from({ length: n }, () => {
    let s = '';
    const len = 1 + Math.floor(r() * 6);
    for (let i = 0; i < len; i++) s += alphabet[Math.floor(r() * alphabet.length)];
    return s + String(Math.floor(r() * N));
  });
}

function depth(t: MapTree<unknown, unknown>): number {
  return t === null ? 0 : 1 + Math.max(depth(t.l), depth(t.r));
}

const tmOf = (v: SValue) => (v.t === 'textmap' ? v.v : expect.fail(`not a textmap: ${v.t}`));
const gmOf = (v: SValue) => (v.t === 'genmap' ? v.v : expect.fail(`not a genmap: ${v.t}`));

describe('TextMap at 100,000 entries', () => {
  const ks = keys(N, 7);
  const model = new Map<string, number>();
  let m = run('TEXTMAP_EMPTY');
  for (let i = 0; i < N; i++) {
    m = run('TEXTMAP_INSERT', text(ks[i]), int64(BigInt(i)), m);
    model.set(ks[i], i);
  }
  const sortedModel = [...model.entries()].sort((x, y) => lfText.compareText(x[0], y[0]));

  it('size, toList in code-point order, lookup of every key and of absent keys', () => {
    expect(run('TEXTMAP_SIZE', m)).toEqual(int64(BigInt(model.size)));
    const l = listToArray((run('TEXTMAP_TO_LIST', m) as Extract<SValue, { t: 'list' }>).v);
    expect(l.map((e) => show(e))).toEqual(sortedModel.map(([key, value]) => ({ key, value: BigInt(value) })));
    for (const [k, x] of model) expect(run('TEXTMAP_LOOKUP', text(k), m)).toEqual(runtime.some(int64(BigInt(x))));
    expect(run('TEXTMAP_LOOKUP', text('absent'), m)).toEqual(runtime.NONE);
    expect(run('TEXTMAP_LOOKUP', text(''), m)).toEqual(runtime.NONE);
  });

  it('stays balanced (depth within twice log2 n) and leaves every earlier version intact', () => {
    expect(depth(tmOf(m))).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(N + 1)));
    const before = mapEntries(tmOf(m));
    const m2 = run('TEXTMAP_INSERT', text('new key'), int64(-1n), m);
    const m3 = run('TEXTMAP_DELETE', text(ks[0]), m);
    expect(mapEntries(tmOf(m))).toEqual(before);
    expect(run('TEXTMAP_SIZE', m2)).toEqual(int64(BigInt(model.size + 1)));
    expect(run('TEXTMAP_SIZE', m3)).toEqual(int64(BigInt(model.size - 1)));
    expect(run('TEXTMAP_LOOKUP', text(ks[0]), m3)).toEqual(runtime.NONE);
  });

  it('deletes: half the keys, absent keys (the same map), then all; balanced throughout', () => {
    let d = m;
    const ref = new Map(model);
    const r = rng(11);
    const victims = [...model.keys()].filter(() => r() < 0.5);
    for (const k of victims) {
      d = run('TEXTMAP_DELETE', text(k), d);
      ref.delete(k);
    }
    expect(tmOf(run('TEXTMAP_DELETE', text('absent'), d))).toBe(tmOf(d));
    expect(depth(tmOf(d))).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(ref.size + 1)));
    expect(mapEntries(tmOf(d)).map(([k, x]) => [k, (x as { v: bigint }).v])).toEqual(
      [...ref.entries()].sort((x, y) => lfText.compareText(x[0], y[0])).map(([k, x]) => [k, BigInt(x)]),
    );
    for (const k of ref.keys()) d = run('TEXTMAP_DELETE', text(k), d);
    expect(run('TEXTMAP_SIZE', d)).toEqual(int64(0n));
    expect(compareValues(d, run('TEXTMAP_EMPTY'))).toBe(0);
  });

  it('maps of the same entries inserted in another order are equal; a changed value orders as the old arrays did', () => {
    let rev = run('TEXTMAP_EMPTY');
    for (const [k, x] of [...model.entries()].reverse()) rev = run('TEXTMAP_INSERT', text(k), int64(BigInt(x)), rev);
    expect(compareValues(m, rev)).toBe(0);
    const [k0, x0] = sortedModel[0];
    const bigger = run('TEXTMAP_INSERT', text(k0), int64(BigInt(x0 + 1)), m);
    expect(compareValues(m, bigger)).toBe(-1);
    expect(compareValues(bigger, m)).toBe(1);
    // A prefix orders before the longer map.
    const shorter = run('TEXTMAP_DELETE', text(sortedModel[sortedModel.length - 1][0]), m);
    expect(compareValues(shorter, m)).toBe(-1);
  });
});

describe('GenMap at 100,000 entries', () => {
  const r = rng(3);
  /** Keys of mixed shape: Int64 and Text under Optional, compared with Canton's value order. */
  const gkeys = Array.from({ length: N }, (_, i) =>
    i % 3 === 0
      ? runtime.some(int64(BigInt(Math.floor(r() * N) - N / 2)))
      : i % 3 === 1
        ? runtime.some(text(String(Math.floor(r() * N))))
        : runtime.NONE,
  );
  const byKey = new Map<string, [SValue, number]>();
  let m = run('GENMAP_EMPTY');
  for (let i = 0; i < N; i++) {
    m = run('GENMAP_INSERT', gkeys[i], int64(BigInt(i)), m);
    byKey.set(
      JSON.stringify(show(gkeys[i]), (_, x: unknown) => (typeof x === 'bigint' ? `#${x}` : x)),
      [gkeys[i], i],
    );
  }
  const model = [...byKey.values()];
  model.sort((x, y) => compareValues(x[0], y[0]));

  it('size, keys and values in Canton value order, lookup of every key', () => {
    expect(run('GENMAP_SIZE', m)).toEqual(int64(BigInt(model.length)));
    const ks = listToArray((run('GENMAP_KEYS', m) as Extract<SValue, { t: 'list' }>).v);
    const vs = listToArray((run('GENMAP_VALUES', m) as Extract<SValue, { t: 'list' }>).v);
    expect(ks.length).toBe(model.length);
    ks.forEach((k, i) => expect(compareValues(k, model[i][0])).toBe(0));
    expect(vs.map((x) => (x as { v: bigint }).v)).toEqual(model.map(([, x]) => BigInt(x)));
    for (const [k, x] of model) expect(run('GENMAP_LOOKUP', k, m)).toEqual(runtime.some(int64(BigInt(x))));
    expect(run('GENMAP_LOOKUP', runtime.some(text('absent')), m)).toEqual(runtime.NONE);
    expect(depth(gmOf(m))).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(N + 1)));
  });

  it('deletes every key, leaving the full map intact', () => {
    let d = m;
    for (const [k] of model) d = run('GENMAP_DELETE', k, d);
    expect(run('GENMAP_SIZE', d)).toEqual(int64(0n));
    expect(run('GENMAP_SIZE', m)).toEqual(int64(BigInt(model.length)));
  });
});

describe('100,000 inserts through the machine', () => {
  it('a FOLDL of TEXTMAP_INSERT over 100,000 Int64s, then its size and a lookup', () => {
    const xs = list(Array.from({ length: N }, (_, i) => int(i)));
    const step = lam(
      [
        ['acc', T.textMap(T.int)],
        ['x', T.int],
      ],
      call('TEXTMAP_INSERT', call('INT64_TO_TEXT', v('x')), v('x'), v('acc')),
    );
    const m = app(b('FOLDL'), step, b('TEXTMAP_EMPTY'), xs);
    expect(show(evalOk(call('TEXTMAP_SIZE', m)))).toBe(BigInt(N));
    expect(show(evalOk(call('TEXTMAP_LOOKUP', str('77777'), m)))).toEqual({ some: 77777n });
  });
});
