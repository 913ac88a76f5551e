/**
 * Daml-LF `Numeric n`: a decimal of scale n (0–37) and at most 38 significant digits, kept as an unscaled bigint and its
 * scale; arithmetic rounds HALF_EVEN and reports overflow as `undefined` (the caller turns it into ArithmeticError), as
 * Canton's `data/…/NumericModule.scala` does. Also the BigNumeric helpers (`SBigNumeric` of `speedy/SValue.scala`).
 */
export const MAX_PRECISION = 38;
export const MAX_SCALE = 37;
const TEN = 10n;
const MAX_UNSCALED = TEN ** 38n - 1n;

export interface Num {
  readonly u: bigint;
  readonly s: number;
}

const pow10Cache: bigint[] = [];
export function pow10(n: number): bigint {
  if (n < 64) return (pow10Cache[n] ??= TEN ** BigInt(n));
  return TEN ** BigInt(n);
}

const abs = (x: bigint) => (x < 0n ? -x : x);

/** Number of decimal digits of |u| (BigDecimal precision: 0 has precision 1). */
export function digits(u: bigint): number {
  const a = abs(u);
  return a === 0n ? 1 : a.toString().length;
}

export const fits = (u: bigint) => abs(u) <= MAX_UNSCALED;
const check = (n: Num): Num | undefined => (fits(n.u) ? n : undefined);

/** Integer division rounding to nearest, ties to even (divisor ≠ 0). */
export function divHalfEven(num: bigint, den: bigint): bigint {
  if (den < 0n) {
    num = -num;
    den = -den;
  }
  let q = num / den;
  let r = num % den;
  if (r === 0n) return q;
  // Make the quotient floor-based.
  if (r < 0n) {
    q -= 1n;
    r += den;
  }
  const twice = 2n * r;
  if (twice > den || (twice === den && (q & 1n) === 1n)) q += 1n;
  return q;
}

/** Java RoundingMode by ordinal: UP, DOWN, CEILING, FLOOR, HALF_UP, HALF_DOWN, HALF_EVEN, UNNECESSARY. */
export function divRound(num: bigint, den: bigint, mode: number): bigint | undefined {
  if (den < 0n) {
    num = -num;
    den = -den;
  }
  let q = num / den; // truncated towards 0
  const r = num % den;
  if (r === 0n) return q;
  const sign = num < 0n ? -1n : 1n;
  const twice = 2n * abs(r);
  const awayFromZero = () => (q += sign);
  switch (mode) {
    case 0:
      awayFromZero();
      break;
    case 1:
      break;
    case 2:
      if (sign > 0n) awayFromZero();
      break;
    case 3:
      if (sign < 0n) awayFromZero();
      break;
    case 4:
      if (twice >= den) awayFromZero();
      break;
    case 5:
      if (twice > den) awayFromZero();
      break;
    case 6:
      if (twice > den || (twice === den && (abs(q) & 1n) === 1n)) awayFromZero();
      break;
    default:
      return undefined; // UNNECESSARY with a remainder
  }
  return q;
}

export function rescaleHalfEven(u: bigint, from: number, to: number): bigint {
  if (to >= from) return u * pow10(to - from);
  return divHalfEven(u, pow10(from - to));
}

export const add = (x: Num, y: Num) => check({ u: x.u + y.u, s: x.s });
export const sub = (x: Num, y: Num) => check({ u: x.u - y.u, s: x.s });
export const mul = (scale: number, x: Num, y: Num) =>
  check({ u: rescaleHalfEven(x.u * y.u, x.s + y.s, scale), s: scale });
export function div(scale: number, x: Num, y: Num): Num | undefined {
  if (y.u === 0n) return undefined;
  // x/y = (ux·10^-sx)/(uy·10^-sy); result unscaled = ux·10^(scale+sy) / (uy·10^sx)
  return check({ u: divHalfEven(x.u * pow10(scale + y.s), y.u * pow10(x.s)), s: scale });
}

/** ROUND_NUMERIC: round to `target` decimal places (may be negative), keep the scale. */
export function round(target: bigint, x: Num): Num | undefined {
  if (!(target <= BigInt(x.s) && BigInt(x.s - MAX_PRECISION) < target)) return undefined;
  const drop = x.s - Number(target);
  const p = pow10(drop);
  return check({ u: divHalfEven(x.u, p) * p, s: x.s });
}

/** Exact conversion to another scale (CAST_NUMERIC, Numeric.fromBigDecimal): no loss of precision allowed. */
export function cast(scale: number, x: Num): Num | undefined {
  if (scale >= x.s) return check({ u: x.u * pow10(scale - x.s), s: scale });
  const p = pow10(x.s - scale);
  if (x.u % p !== 0n) return undefined;
  return check({ u: x.u / p, s: scale });
}

/** SHIFT_NUMERIC: the same digits read at another scale. */
export const shift = (scale: number, x: Num): Num | undefined => check({ u: x.u, s: scale });

export const fromInt64 = (scale: number, i: bigint) => check({ u: i * pow10(scale), s: scale });

/** Towards zero; undefined when outside Int64. */
export function toInt64(x: Num): bigint | undefined {
  const i = x.u / pow10(x.s);
  return i >= -(2n ** 63n) && i < 2n ** 63n ? i : undefined;
}

export function compare(x: Num, y: Num): number {
  if (x.s === y.s) return x.u < y.u ? -1 : x.u > y.u ? 1 : 0;
  const s = Math.max(x.s, y.s);
  const a = x.u * pow10(s - x.s);
  const b = y.u * pow10(s - y.s);
  return a < b ? -1 : a > b ? 1 : 0;
}

function plain(u: bigint, s: number): string {
  const neg = u < 0n;
  let d = abs(u).toString();
  if (s <= 0) return (neg ? '-' : '') + d + '0'.repeat(-s);
  if (d.length <= s) d = '0'.repeat(s - d.length + 1) + d;
  return (neg ? '-' : '') + d.slice(0, d.length - s) + '.' + d.slice(d.length - s);
}

/** Canton `Numeric.toString`: all `scale` digits, a trailing '.' at scale 0 (`"1.0000000000"`, `"100."`). */
export const toScaledString = (x: Num) => (x.s <= 0 ? plain(x.u, x.s) + '.' : plain(x.u, x.s));

/** Strip trailing zeros (BigDecimal.stripTrailingZeros): smallest scale (possibly negative) with the same value. */
export function strip(x: Num): Num {
  if (x.u === 0n) return { u: 0n, s: 0 };
  let { u, s } = x;
  while (u % TEN === 0n) {
    u /= TEN;
    s -= 1;
  }
  return { u, s };
}

/** Canton `Numeric.toUnscaledString` (NUMERIC_TO_TEXT): trailing zeros stripped, at least one fractional digit. */
export function toUnscaledString(x: Num): string {
  const st = strip(x);
  const p = plain(st.u, st.s);
  return p.includes('.') ? p : p + '.0';
}

const SCALED_FORMAT = /^-?([1-9]\d*|0)\.(\d*)$/;

/** Canton `Numeric.fromString`: `-?digits.digits`, scale = number of fractional digits. */
export function fromScaledString(text: string): Num | undefined {
  const m = SCALED_FORMAT.exec(text);
  if (!m) return undefined;
  const scale = m[2].length;
  const precision = m[1] === '0' ? scale : m[1].length + scale;
  if (precision > MAX_PRECISION || scale > MAX_SCALE) return undefined;
  return { u: BigInt(text.replace('.', '')), s: scale };
}

/** A numeric literal of the AST: its text's fractional digits are its scale (`"1.00"` is scale 2, `"5"` scale 0). */
export function fromLiteral(text: string): Num {
  const neg = text.startsWith('-');
  const body = neg || text.startsWith('+') ? text.slice(1) : text;
  const [i, f = ''] = body.split('.');
  const u = BigInt((i || '0') + f);
  return { u: neg ? -u : u, s: f.length };
}

const LENIENT = /^([+-]?)0*(\d+)(\.(\d*[1-9]|0)0*)?$/;

/** TEXT_TO_NUMERIC: Canton's lenient format; undefined when it does not fit `Numeric scale` exactly. */
export function parseLenient(scale: number, text: string): Num | undefined {
  const m = LENIENT.exec(text);
  if (!m) return undefined;
  const [, sign, intPart, , decRaw] = m;
  const decPart = decRaw === undefined || decRaw === '0' ? '' : decRaw;
  const sigInt = intPart === '0' ? 0 : intPart.length;
  if (!(sigInt <= MAX_PRECISION - scale && decPart.length <= scale)) return undefined;
  const u = BigInt(intPart + decPart.padEnd(scale, '0'));
  return { u: sign === '-' ? -u : u, s: scale };
}

// ------------------------------------------------------------------------------------------------------------ BigNumeric

export const BIG_MAX_PRECISION = 1 << 16;
export const BIG_MAX_SCALE = BIG_MAX_PRECISION / 2;

/** SBigNumeric.fromBigDecimal: normalised (trailing zeros stripped), scale and integer digits bounded. */
export function bigNormalise(x: Num): Num | undefined {
  const n = strip(x);
  return n.s <= BIG_MAX_SCALE && digits(n.u) - n.s <= BIG_MAX_SCALE ? n : undefined;
}

export function bigAdd(x: Num, y: Num): Num | undefined {
  const s = Math.max(x.s, y.s);
  return bigNormalise({ u: x.u * pow10(s - x.s) + y.u * pow10(s - y.s), s });
}
export const bigNeg = (x: Num): Num => ({ u: -x.u, s: x.s });
export const bigMul = (x: Num, y: Num) => bigNormalise({ u: x.u * y.u, s: x.s + y.s });
export function bigDiv(scale: number, mode: number, x: Num, y: Num): Num | undefined {
  if (y.u === 0n) return undefined;
  // result unscaled at `scale` = x.u·10^(scale + y.s − x.s) / y.u
  const e = scale + y.s - x.s;
  const num = e >= 0 ? x.u * pow10(e) : x.u;
  const den = e >= 0 ? y.u : y.u * pow10(-e);
  const q = divRound(num, den, mode);
  return q === undefined ? undefined : bigNormalise({ u: q, s: scale });
}
export const bigShiftRight = (n: number, x: Num) =>
  x.u === 0n ? { u: 0n, s: 0 } : bigNormalise({ u: x.u, s: x.s + n });
/** BigDecimal.precision of a normalised big numeric. */
export const bigPrecision = (x: Num) => digits(x.u);
