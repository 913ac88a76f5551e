/** Properties of Numeric, Text ordering and Int64 overflow (fast-check), against exact BigInt/Buffer references. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lfText, numeric } from '@ledgerline/daml-lf';
import { call, int, num, str } from './ast-builders';
import { evalResult, show } from './eval-helpers';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const LIMIT = 10n ** 38n;

const numArb = (scale: number) => fc.bigInt({ min: -(LIMIT - 1n), max: LIMIT - 1n }).map((u) => ({ u, s: scale }));
const scaleArb = fc.integer({ min: 0, max: 37 });

/** Reference HALF_EVEN division on BigInt, written independently of the implementation. */
function refHalfEven(n: bigint, d: bigint): bigint {
  const sign = n < 0n !== d < 0n ? -1n : 1n;
  const an = n < 0n ? -n : n;
  const ad = d < 0n ? -d : d;
  const q = an / ad;
  const r = an % ad;
  const twice = 2n * r;
  const up = twice > ad || (twice === ad && q % 2n === 1n);
  return sign * (up ? q + 1n : q);
}

describe('Numeric properties', () => {
  it('addition is exact within 38 digits and fails exactly beyond', () => {
    fc.assert(
      fc.property(
        scaleArb.chain((s) => fc.tuple(numArb(s), numArb(s))),
        ([x, y]) => {
          const sum = x.u + y.u;
          const r = numeric.add(x, y);
          if (sum >= LIMIT || sum <= -LIMIT) expect(r).toBeUndefined();
          else expect(r).toEqual({ u: sum, s: x.s });
        },
      ),
    );
  });
  it('multiplication rounds HALF_EVEN to the output scale', () => {
    fc.assert(
      fc.property(
        scaleArb,
        scaleArb,
        scaleArb,
        fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }),
        fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }),
        (s1, s2, out, a, b) => {
          const exactScale = s1 + s2;
          const prod = a * b;
          const expected =
            out >= exactScale
              ? prod * 10n ** BigInt(out - exactScale)
              : refHalfEven(prod, 10n ** BigInt(exactScale - out));
          const r = numeric.mul(out, { u: a, s: s1 }, { u: b, s: s2 });
          if (expected >= LIMIT || expected <= -LIMIT) expect(r).toBeUndefined();
          else expect(r).toEqual({ u: expected, s: out });
        },
      ),
    );
  });
  it('division rounds HALF_EVEN and x / y * y is within one unit of x', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }),
        fc.bigInt({ min: 1n, max: 10n ** 12n }),
        (a, b) => {
          const x = { u: a, s: 10 };
          const y = { u: b, s: 10 };
          const q = numeric.div(10, x, y);
          expect(q).toEqual({ u: refHalfEven(a * 10n ** 10n, b), s: 10 });
        },
      ),
    );
  });
  it('the scaled text form parses back to the same value', () => {
    fc.assert(
      fc.property(
        scaleArb.chain((s) => numArb(s)),
        (x) => {
          expect(numeric.fromScaledString(numeric.toScaledString(x))).toEqual(x);
        },
      ),
    );
  });
  it('NUMERIC_TO_TEXT then TEXT_TO_NUMERIC round-trips at scale 10', () => {
    fc.assert(
      fc.property(numArb(10), (x) => {
        const t = evalResult(call('NUMERIC_TO_TEXT', num(numeric.toScaledString(x))));
        expect(t.tag).toBe('done');
        const back = evalResult(
          call('TEXT_TO_NUMERIC', num('1.0000000000'), str(t.tag === 'done' ? (show(t.value) as string) : '')),
        );
        expect(back.tag === 'done' && show(back.value)).toEqual({ some: numeric.toScaledString(x) });
      }),
      { numRuns: 200 },
    );
  });
});

/** Any code points (no lone surrogates), biased towards the BMP-above-surrogates / astral boundary. */
const unicodeText = fc
  .array(
    fc.oneof(
      fc.integer({ min: 0, max: 0x7f }),
      fc.integer({ min: 0x80, max: 0xd7ff }),
      fc.integer({ min: 0xe000, max: 0xffff }),
      fc.integer({ min: 0x10000, max: 0x10ffff }),
    ),
    { maxLength: 8 },
  )
  .map((cps) => String.fromCodePoint(...cps));

describe('Text ordering', () => {
  it('orders as the UTF-8 bytes do', () => {
    fc.assert(
      fc.property(unicodeText, unicodeText, (a, b) => {
        const ref = Math.sign(Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
        expect(Math.sign(lfText.compareText(a, b))).toBe(ref);
        const r = evalResult(call('LESS', str(a), str(b)));
        expect(r.tag === 'done' && show(r.value)).toBe(ref < 0);
      }),
      { numRuns: 500 },
    );
  });
  it('EXPLODE_TEXT yields code points', () => {
    fc.assert(
      fc.property(unicodeText, (a) => {
        const r = evalResult(call('EXPLODE_TEXT', str(a)));
        expect(r.tag === 'done' && show(r.value)).toEqual(Array.from(a));
      }),
    );
  });
});

describe('Int64 overflow', () => {
  const i64 = fc.bigInt({ min: INT64_MIN, max: INT64_MAX });
  const check = (name: 'ADD_INT64' | 'SUB_INT64' | 'MUL_INT64', op: (a: bigint, b: bigint) => bigint) =>
    fc.assert(
      fc.property(i64, i64, (a, b) => {
        const exact = op(a, b);
        const r = evalResult(call(name, int(a), int(b)));
        if (exact < INT64_MIN || exact > INT64_MAX) expect(r.tag === 'error' && r.error.tag).toBe('UnhandledException');
        else expect(r.tag === 'done' && show(r.value)).toBe(exact);
      }),
    );
  it('ADD_INT64 fails exactly on overflow', () => check('ADD_INT64', (a, b) => a + b));
  it('SUB_INT64 fails exactly on overflow', () => check('SUB_INT64', (a, b) => a - b));
  it('MUL_INT64 fails exactly on overflow', () => check('MUL_INT64', (a, b) => a * b));
});
