/**
 * The builtins, restating the cases and expected results of Canton's `interpreter/src/test/…/speedy/SBuiltinTest.scala`.
 */
import { describe, expect, it } from 'vitest';
import type { Expr } from '@ledgerline/daml-lf';
import { ARITHMETIC_ERROR } from '@ledgerline/daml-lf';
import { P, T, alt, b, call, case_, date, int, lam, let_, list, num, str, ts, v } from './ast-builders';
import { evalOk, evalResult, show } from './eval-helpers';

const MAX = 2n ** 63n - 1n;
const MIN = -(2n ** 63n);
const BIG_ODD = 0x67890abcedf12345n;

const ok = (e: Expr) => show(evalOk(e));
const fails = (e: Expr) => evalResult(e).tag === 'error';
/** The witness value of `Numeric scale` (one at that scale). */
const w = (scale: number) => num(scale === 0 ? '1.' : '1.' + '0'.repeat(scale));
/** Canton's `tenPowerOf(i, scale)` as a literal. */
function tenPowerOf(i: number, scale = 10): string {
  if (i === 0) return '1.' + '0'.repeat(scale);
  if (i > 0) return '1' + '0'.repeat(i) + '.' + '0'.repeat(scale);
  return '0.' + '0'.repeat(-i - 1) + '1' + '0'.repeat(scale + i);
}
/** A numeric literal of `x` at `scale` digits. */
function s(scale: number, x: string): string {
  const neg = x.startsWith('-');
  const [i, f = ''] = (neg ? x.slice(1) : x).split('.');
  return (neg ? '-' : '') + i + '.' + f.padEnd(scale, '0');
}
const maxNumeric = (scale: number) => {
  const d = '9'.repeat(38);
  return scale === 0 ? d + '.' : d.slice(0, 38 - scale) + '.' + d.slice(38 - scale);
};

function arithmeticMessage(e: Expr): string | undefined {
  const r = evalResult(e);
  if (r.tag === 'error' && r.error.tag === 'UnhandledException') {
    expect(r.error.exceptionType).toEqual(ARITHMETIC_ERROR);
    return r.error.message;
  }
  return undefined;
}

describe('Int64 builtins', () => {
  it('ADD_INT64 throws on overflow', () => {
    expect(ok(call('ADD_INT64', int(MAX), int(-1)))).toBe(MAX - 1n);
    expect(fails(call('ADD_INT64', int(MAX), int(1)))).toBe(true);
    expect(ok(call('ADD_INT64', int(MIN), int(1)))).toBe(MIN + 1n);
    expect(fails(call('ADD_INT64', int(MIN), int(-1)))).toBe(true);
    expect(fails(call('ADD_INT64', int(BIG_ODD), int(BIG_ODD)))).toBe(true);
  });
  it('SUB_INT64 throws on overflow', () => {
    expect(ok(call('SUB_INT64', int(MAX), int(1)))).toBe(MAX - 1n);
    expect(fails(call('SUB_INT64', int(MAX), int(-1)))).toBe(true);
    expect(ok(call('SUB_INT64', int(MIN), int(-1)))).toBe(MIN + 1n);
    expect(fails(call('SUB_INT64', int(MIN), int(1)))).toBe(true);
    expect(fails(call('SUB_INT64', int(-BIG_ODD), int(BIG_ODD)))).toBe(true);
  });
  it('MUL_INT64 throws on overflow', () => {
    expect(ok(call('MUL_INT64', int(1n << 31n), int(1n << 31n)))).toBe(1n << 62n);
    expect(fails(call('MUL_INT64', int(1n << 32n), int(1n << 31n)))).toBe(true);
    expect(ok(call('MUL_INT64', int(1n << 32n), int(-(1n << 31n))))).toBe(MIN);
    expect(fails(call('MUL_INT64', int(1n << 32n), int(-(1n << 32n))))).toBe(true);
    expect(fails(call('MUL_INT64', int(BIG_ODD), int(42)))).toBe(true);
  });
  it('DIV_INT64 rounds towards 0, fails on overflow and on 0', () => {
    expect(ok(call('DIV_INT64', int(10), int(3)))).toBe(3n);
    expect(ok(call('DIV_INT64', int(10), int(-3)))).toBe(-3n);
    expect(ok(call('DIV_INT64', int(-10), int(3)))).toBe(-3n);
    expect(ok(call('DIV_INT64', int(-10), int(-3)))).toBe(3n);
    expect(ok(call('DIV_INT64', int(MAX), int(-1)))).toBe(-MAX);
    expect(fails(call('DIV_INT64', int(MIN), int(-1)))).toBe(true);
    expect(ok(call('DIV_INT64', int(1), int(MAX)))).toBe(0n);
    expect(fails(call('DIV_INT64', int(1), int(0)))).toBe(true);
    expect(fails(call('DIV_INT64', int(BIG_ODD), int(0)))).toBe(true);
  });
  it('MOD_INT64 is the remainder of DIV_INT64', () => {
    expect(ok(call('MOD_INT64', int(10), int(3)))).toBe(1n);
    expect(ok(call('MOD_INT64', int(10), int(-3)))).toBe(1n);
    expect(ok(call('MOD_INT64', int(-10), int(3)))).toBe(-1n);
    expect(ok(call('MOD_INT64', int(-10), int(-3)))).toBe(-1n);
  });
  it('EXP_INT64: negative exponents and overflow fail, bases -1/0/1 accept huge exponents', () => {
    expect(ok(call('EXP_INT64', int(1), int(0)))).toBe(1n);
    for (const [b, e] of [
      [1n, -1n],
      [0n, -1n],
      [10n, -1n],
      [10n, -20n],
      [BIG_ODD, -42n],
    ])
      expect(fails(call('EXP_INT64', int(b), int(e)))).toBe(true);
    expect(ok(call('EXP_INT64', int(1n << 6n), int(9)))).toBe(1n << 54n);
    expect(fails(call('EXP_INT64', int(1n << 7n), int(9)))).toBe(true);
    expect(ok(call('EXP_INT64', int(-(1n << 7n)), int(9)))).toBe(MIN);
    expect(fails(call('EXP_INT64', int(-(1n << 7n)), int(10)))).toBe(true);
    expect(fails(call('EXP_INT64', int(3), int(BIG_ODD)))).toBe(true);
    expect(fails(call('EXP_INT64', int(2), int(BIG_ODD)))).toBe(true);
    expect(ok(call('EXP_INT64', int(-1), int(BIG_ODD)))).toBe(-1n);
    expect(ok(call('EXP_INT64', int(0), int(BIG_ODD)))).toBe(0n);
    expect(ok(call('EXP_INT64', int(1), int(BIG_ODD)))).toBe(1n);
  });
  it.each([
    [1n, 0n],
    [-1n, 0n],
    [0n, 0n],
    [1n, 1n],
    [-1n, 1n],
    [-1n, 2n],
    [1n, 2n],
    [1048361n, 0n],
    [-349241n, 0n],
    [780996803n, 1n],
    [-163783859n, 1n],
    [293n, 2n],
    [-283n, 2n],
    [1669n, 3n],
    [-1913n, 3n],
    [-2128527769n, 2n],
    [-883061n, 3n],
    [-13n, 7n],
    [-5n, 13n],
    [-2n, 63n],
    [2n, 62n],
    [5n, 11n],
    [17n, 11n],
    [19051n, 3n],
    [1228961011n, 2n],
  ])('EXP_INT64 %s %s', (b, e) => {
    expect(ok(call('EXP_INT64', int(b), int(e)))).toBe(b ** e);
  });
  it('binary operations and comparisons agree with the reference on small values', () => {
    const small = [167n, 11n, 2n, 1n, 0n, -1n, -2n, -11n, -167n];
    for (const a of small)
      for (const c of small) {
        expect(ok(call('ADD_INT64', int(a), int(c)))).toBe(a + c);
        expect(ok(call('SUB_INT64', int(a), int(c)))).toBe(a - c);
        expect(ok(call('MUL_INT64', int(a), int(c)))).toBe(a * c);
        if (c === 0n) expect(fails(call('DIV_INT64', int(a), int(c)))).toBe(true);
        else expect(ok(call('DIV_INT64', int(a), int(c)))).toBe(a / c);
        if (c === 0n) expect(fails(call('MOD_INT64', int(a), int(c)))).toBe(true);
        else expect(ok(call('MOD_INT64', int(a), int(c)))).toBe(a % c);
        expect(ok(call('LESS_EQ', int(a), int(c)))).toBe(a <= c);
        expect(ok(call('GREATER_EQ', int(a), int(c)))).toBe(a >= c);
        expect(ok(call('LESS', int(a), int(c)))).toBe(a < c);
        expect(ok(call('GREATER', int(a), int(c)))).toBe(a > c);
        expect(ok(call('EQUAL', int(a), int(c)))).toBe(a === c);
      }
    for (const a of small) expect(ok(call('INT64_TO_TEXT', int(a)))).toBe(a.toString());
  });
});

describe('Numeric builtins', () => {
  const big = '8765432109876543210987654321.0987654321';
  const minPos = '0.0000000001';
  it('ADD_NUMERIC fails on overflow', () => {
    expect(fails(call('ADD_NUMERIC', num('9'.repeat(38) + '.'), num('-1.')))).toBe(false);
    expect(fails(call('ADD_NUMERIC', num('9'.repeat(38) + '.'), num('1.')))).toBe(true);
    expect(fails(call('ADD_NUMERIC', num('9.' + '9'.repeat(37)), num('-0.' + '0'.repeat(36) + '1')))).toBe(false);
    expect(fails(call('ADD_NUMERIC', num('9.' + '9'.repeat(37)), num('0.' + '0'.repeat(36) + '1')))).toBe(true);
    expect(ok(call('ADD_NUMERIC', num(big), num('2.0000000000')))).toBe('8765432109876543210987654323.0987654321');
    expect(fails(call('ADD_NUMERIC', num(maxNumeric(10)), num(minPos)))).toBe(true);
    expect(fails(call('ADD_NUMERIC', num('-' + maxNumeric(10)), num('-' + minPos)))).toBe(true);
    expect(fails(call('ADD_NUMERIC', num(big), num('8765432109876543210987654320.0987654321')))).toBe(true);
  });
  it('SUB_NUMERIC fails on overflow', () => {
    expect(fails(call('SUB_NUMERIC', num('-' + '9'.repeat(38) + '.'), num('-1.')))).toBe(false);
    expect(fails(call('SUB_NUMERIC', num('-' + '9'.repeat(38) + '.'), num('1.')))).toBe(true);
    expect(fails(call('SUB_NUMERIC', num('-9.' + '9'.repeat(37)), num('-0.' + '0'.repeat(36) + '1')))).toBe(false);
    expect(fails(call('SUB_NUMERIC', num('-9.' + '9'.repeat(37)), num('0.' + '0'.repeat(36) + '1')))).toBe(true);
    expect(ok(call('SUB_NUMERIC', num(big), num('2.0000000000')))).toBe('8765432109876543210987654319.0987654321');
    expect(fails(call('SUB_NUMERIC', num(maxNumeric(10)), num('-' + minPos)))).toBe(true);
    expect(fails(call('SUB_NUMERIC', num('-' + big), num(big)))).toBe(true);
  });
  it('MUL_NUMERIC rounds HALF_EVEN and fails on overflow', () => {
    const under = '3.1622776601683793319988935444327185337';
    const over = '3.1622776601683793319988935444327185338';
    expect(fails(call('MUL_NUMERIC', w(0), num('1' + '0'.repeat(18) + '.'), num('1' + '0'.repeat(19) + '.')))).toBe(
      false,
    );
    expect(fails(call('MUL_NUMERIC', w(0), num('1' + '0'.repeat(19) + '.'), num('1' + '0'.repeat(19) + '.')))).toBe(
      true,
    );
    expect(fails(call('MUL_NUMERIC', w(37), num(under), num(under)))).toBe(false);
    expect(fails(call('MUL_NUMERIC', w(37), num(over), num(under)))).toBe(true);
    expect(ok(call('MUL_NUMERIC', w(10), num('1.1000000000'), num('2.2000000000')))).toBe('2.4200000000');
    expect(ok(call('MUL_NUMERIC', w(10), num(tenPowerOf(13)), num(tenPowerOf(14))))).toBe(
      '1' + '0'.repeat(27) + '.0000000000',
    );
    expect(fails(call('MUL_NUMERIC', w(10), num(tenPowerOf(14)), num(tenPowerOf(14))))).toBe(true);
  });
  it('DIV_NUMERIC fails on overflow and division by 0', () => {
    expect(
      fails(call('DIV_NUMERIC', w(37), num(s(37, '0.000000000000000001')), num(s(37, '-0.000000000000000001')))),
    ).toBe(false);
    expect(
      fails(call('DIV_NUMERIC', w(37), num(s(37, '0.000000000000000001')), num(s(37, '-0.0000000000000000001')))),
    ).toBe(true);
    expect(fails(call('DIV_NUMERIC', w(1), num('1' + '0'.repeat(36) + '.0'), num('0.2')))).toBe(false);
    expect(fails(call('DIV_NUMERIC', w(1), num('1' + '0'.repeat(36) + '.0'), num('0.1')))).toBe(true);
    expect(ok(call('DIV_NUMERIC', w(10), num('1.1000000000'), num('2.2000000000')))).toBe('0.5000000000');
    expect(fails(call('DIV_NUMERIC', w(10), num(big), num(tenPowerOf(-10))))).toBe(true);
    expect(ok(call('DIV_NUMERIC', w(10), num(tenPowerOf(17)), num(tenPowerOf(-10))))).toBe(
      '1' + '0'.repeat(27) + '.0000000000',
    );
    expect(fails(call('DIV_NUMERIC', w(10), num(tenPowerOf(18)), num(tenPowerOf(-10))))).toBe(true);
    expect(ok(call('DIV_NUMERIC', w(10), num('1.0000000000'), num(tenPowerOf(-10))))).toBe(tenPowerOf(10));
    expect(fails(call('DIV_NUMERIC', w(10), num('1.0000000000'), num('0.0000000000')))).toBe(true);
  });
  it('ROUND_NUMERIC accepts -27..10 at scale 10 and rounds HALF_EVEN', () => {
    for (const i of [100, -100, ...Array.from({ length: 43 }, (_, k) => k - 30)])
      expect(fails(call('ROUND_NUMERIC', int(i), num(big)))).toBe(!(-27 <= i && i <= 10));
    expect(ok(call('ROUND_NUMERIC', int(-27), num(big)))).toBe('9000000000000000000000000000.0000000000');
    expect(ok(call('ROUND_NUMERIC', int(-1), num('45.0000000000')))).toBe('40.0000000000');
    expect(ok(call('ROUND_NUMERIC', int(-1), num('55.0000000000')))).toBe('60.0000000000');
    expect(ok(call('ROUND_NUMERIC', int(10), num(big)))).toBe(big);
  });
  const numerics = [
    '161803398.87499',
    '3.1415926536',
    '2.7182818285',
    '0.0000000001',
    '0.0',
    '100.0',
    '-0.0000000001',
    '-2.7182818285',
    '-3.1415926536',
    '-161803398.87499',
  ];
  it('NUMERIC_TO_TEXT renders without trailing zeros', () => {
    for (const a of numerics) expect(ok(call('NUMERIC_TO_TEXT', num(s(10, a))))).toBe(a);
  });
  it('comparisons of numerics follow their values', () => {
    const val = (x: string) => Number(x);
    for (const a of numerics)
      for (const b of numerics) {
        expect(ok(call('LESS', num(s(10, a)), num(s(10, b))))).toBe(val(a) < val(b));
        expect(ok(call('EQUAL', num(s(10, a)), num(s(10, b))))).toBe(val(a) === val(b));
      }
  });
  it('CAST_NUMERIC fails on overflow and precision loss, else converts', () => {
    const bad: [number, string][] = [
      [1, maxNumeric(0)],
      [37, '10.'],
      [30, tenPowerOf(15, 20)],
      [37, '-' + maxNumeric(36)],
      [0, tenPowerOf(-1, 1)],
      [0, tenPowerOf(-37, 37)],
      [10, '-' + tenPowerOf(-15, 20)],
      [36, tenPowerOf(-37, 37)],
    ];
    for (const [out, x] of bad) expect(fails(call('CAST_NUMERIC', w(out), num(x)))).toBe(true);
    expect(ok(call('CAST_NUMERIC', w(0), num('1.0')))).toBe('1.');
    expect(ok(call('CAST_NUMERIC', w(20), num(tenPowerOf(-5, 10))))).toBe(tenPowerOf(-5, 20));
    expect(ok(call('CAST_NUMERIC', w(10), num(tenPowerOf(10, 20))))).toBe(tenPowerOf(10, 10));
  });
  it('SHIFT_NUMERIC moves the decimal point', () => {
    expect(ok(call('SHIFT_NUMERIC', w(1), num(maxNumeric(0))))).toBe(maxNumeric(1));
    expect(ok(call('SHIFT_NUMERIC', w(37), num(tenPowerOf(1, 0))))).toBe(tenPowerOf(-36, 37));
    expect(ok(call('SHIFT_NUMERIC', w(30), num(tenPowerOf(15, 20))))).toBe(tenPowerOf(5, 30));
    expect(ok(call('SHIFT_NUMERIC', w(10), num(tenPowerOf(15, 20))))).toBe(tenPowerOf(25, 10));
    expect(ok(call('SHIFT_NUMERIC', w(20), num(tenPowerOf(-5, 10))))).toBe(tenPowerOf(-15, 20));
    expect(ok(call('SHIFT_NUMERIC', w(10), num(tenPowerOf(10, 20))))).toBe(tenPowerOf(20, 10));
  });
  it('NUMERIC_TO_INT64 truncates and fails outside Int64', () => {
    expect(fails(call('NUMERIC_TO_INT64', num((MIN - 1n).toString() + '.')))).toBe(true);
    expect(ok(call('NUMERIC_TO_INT64', num(MIN.toString() + '.999')))).toBe(MIN);
    expect(ok(call('NUMERIC_TO_INT64', num(MAX.toString() + '.' + '9'.repeat(13))))).toBe(MAX);
    expect(fails(call('NUMERIC_TO_INT64', num((MAX + 1n).toString() + '.' + '0'.repeat(17))))).toBe(true);
    for (const [n, i] of [
      ['0.0000001', 0n],
      ['0.00', 0n],
      ['1.00000000', 1n],
      ['1.0000000001', 1n],
      ['1.' + '9'.repeat(37), 1n],
      ['123456789.12345678912345678912', 123456789n],
    ] as const) {
      expect(ok(call('NUMERIC_TO_INT64', num(n)))).toBe(i);
      expect(ok(call('NUMERIC_TO_INT64', num('-' + n)))).toBe(-i);
    }
  });
  it('INT64_TO_NUMERIC', () => {
    for (const i of [167n, 11n, 2n, 1n, 0n, -1n, -2n, -13n, -113n])
      expect(ok(call('INT64_TO_NUMERIC', w(10), int(i)))).toBe(`${i}.0000000000`);
  });
  it('TEXT_TO_NUMERIC: lenient format, exact fit only', () => {
    const good: [string, string][] = [
      ['9'.repeat(28) + '.' + '9'.repeat(10), '9'.repeat(28) + '.' + '9'.repeat(10)],
      ['0'.repeat(20) + '1'.repeat(28), '1'.repeat(28) + '.0000000000'],
      ['161803398.87499', '161803398.8749900000'],
      ['0.0005' + '0'.repeat(20), '0.0005000000'],
      ['+0.0', '0.0000000000'],
      ['0', '0.0000000000'],
      ['-0', '0.0000000000'],
      ['42', '42.0000000000'],
      ['-0.0005' + '0'.repeat(20), '-0.0005000000'],
      ['-' + '0'.repeat(20) + '1'.repeat(28), '-' + '1'.repeat(28) + '.0000000000'],
      ['1.' + '0'.repeat(100_000), '1.0000000000'],
      ['-' + '0'.repeat(100_000) + '3.0', '-3.0000000000'],
    ];
    for (const [i, o] of good) expect(ok(call('TEXT_TO_NUMERIC', w(10), str(i)))).toEqual({ some: o });
    for (const i of [
      'pi',
      '0x11',
      '1E10',
      '2.',
      '1L',
      '+-1',
      '1'.repeat(29),
      '-' + '1'.repeat(29),
      '+' + '1'.repeat(29),
      '0.' + '0'.repeat(10) + '1',
      '42' + '0'.repeat(24) + '2019',
    ])
      expect(ok(call('TEXT_TO_NUMERIC', w(10), str(i)))).toBeNull();
  });
});

describe('Text builtins', () => {
  it('EXPLODE_TEXT and IMPLODE_TEXT work on full unicode', () => {
    expect(ok(call('EXPLODE_TEXT', str('a¶‱😂')))).toEqual(['a', '¶', '‱', '😂']);
    expect(ok(call('IMPLODE_TEXT', list([str(''), str(''), str('')], T.text)))).toBe('');
    expect(ok(call('IMPLODE_TEXT', list([str('a'), str('¶'), str('‱'), str('😂')], T.text)))).toBe('a¶‱😂');
  });
  it.each([
    ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    [
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      'cd372fb85148700fa88095e3492d3f9f5beb43e555e5ff26d95f5a6adc36f8e6',
    ],
    ['a¶‱😂', '8f1cc14a85321115abcd2854e34f9ca004f4f199d367c3c9a84a355f287cec2e'],
  ])('SHA256_TEXT %j', (i, o) => expect(ok(call('SHA256_TEXT', str(i)))).toBe(o));
  it('SHA256_HEX hashes hex input and refuses the rest as MalformedByteEncoding', () => {
    expect(ok(call('SHA256_HEX', str('')))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(ok(call('SHA256_HEX', str('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')))).toBe(
      '5df6e0e2761359d30a8275058e299fcc0381534545f55cf43e41983f5d4c9456',
    );
    for (const bad of ['DeadBeef', 'a¶‱😂', 'abc']) {
      const r = evalResult(call('SHA256_HEX', str(bad)));
      expect(r.tag === 'error' && r.error.tag === 'Crypto' && r.error.message).toBe(
        `MalformedByteEncoding(${bad}, can not parse hex string)`,
      );
    }
  });
  it('APPEND_TEXT', () => {
    const strings = ['', 'aa', 'ab', 'b', 'a¶‱😂', 'a¶‱😃', 'a', '¶', '‱', '😂', '😃', '｡', '1.1'];
    for (const a of strings) for (const b of strings) expect(ok(call('APPEND_TEXT', str(a), str(b)))).toBe(a + b);
  });
  it('CODE_POINTS_TO_TEXT accepts legal code points and refuses surrogates and out-of-range values', () => {
    const q = 0x27n;
    for (const cp of [
      0x0, 0x61, 0x7f, 0x80, 0xe9, 0x8ee0, 0xd7ff, 0xe000, 0xe568, 0xffff, 0x10000, 0x1d81a, 0x1ffff, 0x20000, 0x245ad,
      0x2ffff, 0x30000, 0x3ae2d, 0x3ffff, 0x40000, 0x9ea6d, 0xdffff, 0xe0000, 0xeae2d, 0xeffff, 0xf0000, 0x10ae2d,
      0x10ffff,
    ])
      expect(ok(call('CODE_POINTS_TO_TEXT', list([int(q), int(cp), int(q)])))).toBe(`'${String.fromCodePoint(cp)}'`);
    for (const cp of [
      0xd800n,
      0xd924n,
      0xdbffn,
      0xdc00n,
      0xdde0n,
      0xdfffn,
      MIN,
      -(2n ** 31n),
      -0x23458n,
      -1n,
      0x110000n,
      0x110001n,
      0x345678n,
      2n ** 31n - 1n,
      MAX,
    ])
      expect(fails(call('CODE_POINTS_TO_TEXT', list([int(q), int(cp), int(q)])))).toBe(true);
  });
  it('TEXT_TO_CODE_POINTS is the inverse', () => {
    expect(ok(call('TEXT_TO_CODE_POINTS', str('a😂')))).toEqual([0x61n, 0x1f602n]);
  });
  it('TEXT_TO_PARTY and PARTY_TO_TEXT', () => {
    expect(ok(call('TEXT_TO_PARTY', str('alice')))).toEqual({ some: 'alice' });
    expect(ok(call('TEXT_TO_PARTY', str('bad%char')))).toBeNull();
    expect(ok(call('TEXT_TO_PARTY', str('p'.repeat(255))))).toEqual({ some: 'p'.repeat(255) });
    expect(ok(call('TEXT_TO_PARTY', str('p'.repeat(256))))).toBeNull();
    expect(ok(call('TEXT_TO_PARTY', str('')))).toBeNull();
    expect(
      ok(
        case_(call('TEXT_TO_PARTY', str('alice')), [
          alt(P.some('p'), call('PARTY_TO_TEXT', v('p'))),
          alt(P.default, str('none')),
        ]),
      ),
    ).toBe('alice');
  });
  it('TEXT_TO_INT64', () => {
    for (const s of [
      '-9223372036854775808',
      '-9223372036854775807',
      '-22',
      '0',
      '42',
      '9223372036854775806',
      '9223372036854775807',
      '+9223372036854775807',
      '01',
      '0'.repeat(20) + '42',
      '-003',
    ])
      expect(ok(call('TEXT_TO_INT64', str(s)))).toEqual({ some: BigInt(s) });
    for (const s of [
      'pi',
      '0x11',
      '1.0',
      '2.',
      '1L',
      '+-1',
      '9223372036854775808',
      '9223372036854775809',
      '-9223372036854775809',
      '-9223372036854775810',
      '1'.repeat(20),
      '1'.repeat(100_000),
    ])
      expect(ok(call('TEXT_TO_INT64', str(s)))).toBeNull();
    expect(ok(call('TEXT_TO_INT64', str('0'.repeat(100_000) + '1')))).toEqual({ some: 1n });
  });
  it('Text orders by code point (UTF-8 bytes), not by UTF-16 units', () => {
    // U+FF61 (｡) is one UTF-16 unit above the surrogates of 😂, but below it as a code point.
    expect(ok(call('LESS', str('｡'), str('😂')))).toBe(true);
    expect(ok(call('LESS', str('a'), str('ab')))).toBe(true);
    expect(ok(call('LESS', str('b'), str('ab')))).toBe(false);
  });
  it('TEXT_TO_HEX and HEX_TO_TEXT', () => {
    expect(ok(call('TEXT_TO_HEX', str('a¶')))).toBe('61c2b6');
    expect(ok(call('HEX_TO_TEXT', str('61c2b6')))).toBe('a¶');
    expect(fails(call('HEX_TO_TEXT', str('6')))).toBe(true);
  });
});

describe('Time builtins', () => {
  it('timestamps compare chronologically', () => {
    const t = [-14159025000000n, 0n, 978303600000000n];
    for (const a of t) for (const b of t) expect(ok(call('LESS_EQ', ts(a), ts(b)))).toBe(a <= b);
  });
  it('DATE_TO_TEXT and TIMESTAMP_TO_TEXT render ISO forms', () => {
    expect(ok(call('DATE_TO_TEXT', date(-33165)))).toBe('1879-03-14');
    expect(ok(call('TIMESTAMP_TO_TEXT', ts(-14159025000000n)))).toBe('1969-07-21T02:56:15Z');
    expect(ok(call('TIMESTAMP_TO_TEXT', ts(1_500n)))).toBe('1970-01-01T00:00:00.001500Z');
    expect(ok(call('TIMESTAMP_TO_TEXT', ts(-62135596800000000n)))).toBe('0001-01-01T00:00:00Z');
  });
  it('UNIX_MICROSECONDS_TO_TIMESTAMP fails outside the range', () => {
    for (const [i, good] of [
      [MIN, false],
      [-62135596800000001n, false],
      [-62135596800000000n, true],
      [0n, true],
      [253402300799999999n, true],
      [253402300800000000n, false],
      [MAX, false],
    ] as const)
      expect(fails(call('UNIX_MICROSECONDS_TO_TIMESTAMP', int(i)))).toBe(!good);
    for (const i of [-62135596800000000n, -14159025000000n, 0n, 978303600000000n, 253402300799999999n])
      expect(ok(call('TIMESTAMP_TO_UNIX_MICROSECONDS', call('UNIX_MICROSECONDS_TO_TIMESTAMP', int(i))))).toBe(i);
  });
  it('UNIX_DAYS_TO_DATE fails outside the range', () => {
    for (const [i, good] of [
      [MIN, false],
      [-(2n ** 31n), false],
      [-719163n, false],
      [-719162n, true],
      [0n, true],
      [2932896n, true],
      [2932897n, false],
      [MAX, false],
    ] as const)
      expect(fails(call('UNIX_DAYS_TO_DATE', int(i)))).toBe(!good);
    for (const [d, i] of [
      [-164, -164n],
      [0, 0n],
      [11323, 11323n],
    ] as const) {
      expect(ok(call('DATE_TO_UNIX_DAYS', date(d)))).toBe(i);
      expect(ok(call('EQUAL', call('UNIX_DAYS_TO_DATE', int(i)), date(d)))).toBe(true);
    }
    expect(ok(call('DATE_TO_TEXT', call('UNIX_DAYS_TO_DATE', int(11323))))).toBe('2001-01-01');
  });
});

describe('List builtins', () => {
  const f = lam(
    [
      ['x', T.int],
      ['y', T.int],
    ],
    call('ADD_INT64', int(3), call('MUL_INT64', v('x'), v('y'))),
  );
  const g = lam(
    [['x', T.int]],
    let_([['z', T.int, int(3)]], lam([['y', T.int]], call('ADD_INT64', v('z'), call('MUL_INT64', v('x'), v('y'))))),
  );
  it('FOLDL', () => {
    expect(ok(call('FOLDL', f, int(5), list([])))).toBe(5n);
    expect(ok(call('FOLDL', f, int(5), list([int(7), int(11), int(13)])))).toBe(5476n);
  });
  it('FOLDR, also with a step function of one argument', () => {
    expect(ok(call('FOLDR', f, int(5), list([])))).toBe(5n);
    expect(ok(call('FOLDR', f, int(5), list([int(7), int(11), int(13)])))).toBe(5260n);
    expect(ok(call('FOLDR', g, int(5), list([int(7), int(11), int(13)])))).toBe(5260n);
  });
  it('EQUAL_LIST', () => {
    const sameParity = lam(
      [
        ['x', T.int],
        ['y', T.int],
      ],
      call('EQUAL', call('MOD_INT64', v('x'), int(2)), call('MOD_INT64', v('y'), int(2))),
    );
    const l = (...xs: number[]) => list(xs.map(int));
    expect(ok(call('EQUAL_LIST', sameParity, l(), l()))).toBe(true);
    expect(ok(call('EQUAL_LIST', sameParity, l(1, 2, 3), l(5, 6, 7)))).toBe(true);
    expect(ok(call('EQUAL_LIST', sameParity, l(), l(1)))).toBe(false);
    expect(ok(call('EQUAL_LIST', sameParity, l(1), l(1, 2)))).toBe(false);
    expect(ok(call('EQUAL_LIST', sameParity, l(1, 2, 3), l(5, 6, 4)))).toBe(false);
  });
});

describe('Map builtins', () => {
  const tm = (kvs: [string, number][]) =>
    kvs.reduce<Expr>((acc, [k, x]) => call('TEXTMAP_INSERT', str(k), int(x), acc), b('TEXTMAP_EMPTY'));
  const gm = (kvs: [string, number][]) =>
    kvs.reduce<Expr>((acc, [k, x]) => call('GENMAP_INSERT', str(k), int(x), acc), b('GENMAP_EMPTY'));
  const abc: [string, number][] = [
    ['a', 1],
    ['b', 2],
    ['c', 3],
  ];
  const words = ['slant', 'visit', 'ranch', 'first', 'patch', 'trend', 'sweat', 'enter', 'cover', 'favor'].map(
    (w, i) => [w, i] as [string, number],
  );
  const sorted = [...words].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  it('TEXTMAP insert, replace, lookup, delete, to list, size', () => {
    expect(ok(tm(abc))).toEqual({ a: 1n, b: 2n, c: 3n });
    expect(ok(call('TEXTMAP_INSERT', str('b'), int(4), tm(abc)))).toEqual({ a: 1n, b: 4n, c: 3n });
    for (const [k, x] of abc) expect(ok(call('TEXTMAP_LOOKUP', str(k), tm(abc)))).toEqual({ some: BigInt(x) });
    expect(ok(call('TEXTMAP_LOOKUP', str('d'), tm(abc)))).toBeNull();
    expect(ok(call('TEXTMAP_DELETE', str('a'), tm(abc)))).toEqual({ b: 2n, c: 3n });
    expect(ok(call('TEXTMAP_DELETE', str('d'), tm(abc)))).toEqual({ a: 1n, b: 2n, c: 3n });
    expect(ok(call('TEXTMAP_TO_LIST', tm(words)))).toEqual(sorted.map(([key, x]) => ({ key, value: BigInt(x) })));
    expect(ok(call('TEXTMAP_SIZE', b('TEXTMAP_EMPTY')))).toBe(0n);
    expect(ok(call('TEXTMAP_SIZE', tm(abc)))).toBe(3n);
  });
  it('GENMAP insert, replace, lookup, delete, keys, values, size', () => {
    expect(ok(gm(abc))).toEqual([
      ['a', 1n],
      ['b', 2n],
      ['c', 3n],
    ]);
    expect(ok(call('GENMAP_INSERT', str('b'), int(4), gm(abc)))).toEqual([
      ['a', 1n],
      ['b', 4n],
      ['c', 3n],
    ]);
    expect(ok(call('GENMAP_LOOKUP', str('c'), gm(abc)))).toEqual({ some: 3n });
    expect(ok(call('GENMAP_LOOKUP', str('d'), gm(abc)))).toBeNull();
    expect(ok(call('GENMAP_DELETE', str('b'), gm(abc)))).toEqual([
      ['a', 1n],
      ['c', 3n],
    ]);
    expect(ok(call('GENMAP_KEYS', gm(words)))).toEqual(sorted.map(([k]) => k));
    expect(ok(call('GENMAP_VALUES', gm(words)))).toEqual(sorted.map(([, x]) => BigInt(x)));
    expect(ok(call('GENMAP_SIZE', gm(abc)))).toBe(3n);
  });
  it('GENMAP refuses keys that are not comparable (functions)', () => {
    const fn = lam([['x', T.int]], v('x'));
    for (const e of [
      call('GENMAP_INSERT', fn, int(0), b('GENMAP_EMPTY')),
      call('GENMAP_LOOKUP', fn, call('GENMAP_INSERT', int(1), int(0), b('GENMAP_EMPTY'))),
      call('GENMAP_DELETE', fn, b('GENMAP_EMPTY')),
    ]) {
      const r = evalResult(e);
      expect(r.tag === 'error' && r.error.tag).toBe('NonComparableValues');
    }
  });
});

describe('ArithmeticError messages', () => {
  const maxN0 = num(maxNumeric(0));
  it.each<[string, Expr, string]>([
    ['ADD_INT64', call('ADD_INT64', int(MAX), int(2)), `ADD_INT64 ${MAX} 2`],
    ['SUB_INT64', call('SUB_INT64', int(-2), int(MAX)), `SUB_INT64 -2 ${MAX}`],
    ['MUL_INT64', call('MUL_INT64', int(MAX), int(2)), `MUL_INT64 ${MAX} 2`],
    ['DIV_INT64', call('DIV_INT64', int(MAX), int(0)), `DIV_INT64 ${MAX} 0`],
    ['MOD_INT64', call('MOD_INT64', int(MAX), int(0)), `MOD_INT64 ${MAX} 0`],
    ['EXP_INT64', call('EXP_INT64', int(2), int(MAX)), `EXP_INT64 2 ${MAX}`],
    ['ADD_NUMERIC', call('ADD_NUMERIC', maxN0, num('2.')), `ADD_NUMERIC ${'9'.repeat(38)}.0 2.0`],
    ['MUL_NUMERIC', call('MUL_NUMERIC', w(0), maxN0, maxN0), `MUL_NUMERIC 1.0 ${'9'.repeat(38)}.0 ${'9'.repeat(38)}.0`],
    ['DIV_NUMERIC', call('DIV_NUMERIC', w(0), num('2.'), num('0.')), 'DIV_NUMERIC 1.0 2.0 0.0'],
    ['ROUND_NUMERIC', call('ROUND_NUMERIC', int(37), maxN0), `ROUND_NUMERIC 37 ${'9'.repeat(38)}.0`],
    ['INT64_TO_NUMERIC', call('INT64_TO_NUMERIC', w(37), int(10)), `INT64_TO_NUMERIC 1.0 10`],
    ['NUMERIC_TO_INT64', call('NUMERIC_TO_INT64', maxN0), `NUMERIC_TO_INT64 ${'9'.repeat(38)}.0`],
    ['UNIX_DAYS_TO_DATE', call('UNIX_DAYS_TO_DATE', int(MAX)), `UNIX_DAYS_TO_DATE ${MAX}`],
    [
      'UNIX_MICROSECONDS_TO_TIMESTAMP',
      call('UNIX_MICROSECONDS_TO_TIMESTAMP', int(MAX)),
      `UNIX_MICROSECONDS_TO_TIMESTAMP ${MAX}`,
    ],
  ])('%s', (_, e, inner) => {
    expect(arithmeticMessage(e)).toBe(`ArithmeticError while evaluating (${inner}).`);
  });
});

describe('Errors', () => {
  it('ERROR is a user error', () => {
    const r = evalResult(call('ERROR', str('message')));
    expect(r).toEqual({ tag: 'error', error: { tag: 'UserError', message: 'message' } });
  });
  it('ANY_EXCEPTION_MESSAGE of an ArithmeticError needs no package', () => {
    const e: Expr = {
      tag: 'toAnyException',
      type: { tag: 'con', tycon: ARITHMETIC_ERROR, args: [] },
      expr: {
        tag: 'recCon',
        tycon: { tycon: ARITHMETIC_ERROR, args: [] },
        fields: [{ field: 'message', expr: str('Arithmetic error') }],
      },
    };
    expect(ok(call('ANY_EXCEPTION_MESSAGE', e))).toBe('Arithmetic error');
  });
});
