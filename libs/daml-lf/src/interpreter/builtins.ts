/**
 * The builtin functions of `daml_lf2.proto` with Canton's semantics (`speedy/SBuiltinFun.scala`). Type arguments are
 * erased; Numeric builtins that choose an output scale take a witness value of that scale first (LF 2).
 * Arithmetic failures throw `ArithmeticError` (catchable); `ERROR` is a user error; ill-typed arguments are internal
 * failures.
 */
import { createHash } from 'node:crypto';
import type { BuiltinFunction } from '../language/ast';
import type { BuiltinDef, Cons, MachineOps } from './code';
import { arithmeticError, Failure, internal } from './errors';
import { keccak256 } from './keccak';
import { parsePublicKey, verifyDigest } from './secp256k1';
import { CELL_BYTES, MAP_NODE_BYTES, listBytes, textBytes } from './memory';
import * as N from './numeric';
import { mapDelete, mapFoldRight, mapForEach, mapInsert, mapLookup, mapSize } from './smap';
import { compareText, explode, fromCodePoints, isLowerHex, isParty } from './text';
import { dateInRange, dateToText, timestampInRange, timestampToText } from './time';
import {
  FALSE,
  NONE,
  TRUE,
  bool,
  checkComparable,
  compareValues,
  equalValues,
  int64,
  listFromArray,
  listToArray,
  some,
  text,
  type SValue,
} from './values';

const consList = (c: Cons | null): SValue => ({ t: 'list', v: c });
/** Charges `bytes`; undefined, so that `charged(m, n) ?? build()` charges before it builds. */
const charged = (m: MachineOps, bytes: number): undefined => void m.charge(bytes);
/** The nodes an insert or delete rebuilds: one per level (at most 2 log2 n + 2 in a weight-balanced tree). */
const pathBytes = (t: { readonly n: number } | null) =>
  MAP_NODE_BYTES * (2 * Math.ceil(Math.log2((t?.n ?? 0) + 2)) + 2);

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const inInt64 = (x: bigint) => x >= INT64_MIN && x <= INT64_MAX;

function typeError(i: number, expected: string, got: SValue): Failure {
  return internal(`type mismatch of argument ${i}: expect ${expected} but got ${got.t}`);
}

const getInt = (a: readonly SValue[], i: number): bigint => {
  const v = a[i];
  if (v.t !== 'int64') throw typeError(i, 'SInt64', v);
  return v.v;
};
const getNum = (a: readonly SValue[], i: number): N.Num => {
  const v = a[i];
  if (v.t !== 'numeric') throw typeError(i, 'SNumeric', v);
  return v.v;
};
const getBig = (a: readonly SValue[], i: number): N.Num => {
  const v = a[i];
  if (v.t !== 'bignumeric') throw typeError(i, 'SBigNumeric', v);
  return v.v;
};
const getText = (a: readonly SValue[], i: number): string => {
  const v = a[i];
  if (v.t !== 'text') throw typeError(i, 'SText', v);
  return v.v;
};
const getList = (a: readonly SValue[], i: number) => {
  const v = a[i];
  if (v.t !== 'list') throw typeError(i, 'SList', v);
  return v.v;
};
const getTextMap = (a: readonly SValue[], i: number) => {
  const v = a[i];
  if (v.t !== 'textmap') throw typeError(i, 'TextMap', v);
  return v.v;
};
const getKey = (a: readonly SValue[], i: number): SValue => {
  checkComparable(a[i]);
  return a[i];
};
const getGenMap = (a: readonly SValue[], i: number) => {
  const v = a[i];
  if (v.t !== 'genmap') throw typeError(i, 'GenMap', v);
  return v.v;
};

/** Canton's `litToText`, for the ArithmeticError message. */
function litToText(v: SValue): string {
  switch (v.t) {
    case 'bool':
      return String(v.v);
    case 'int64':
      return v.v.toString();
    case 'timestamp':
      return timestampToText(v.v);
    case 'text':
    case 'party':
      return v.v;
    case 'unit':
      return '<unit>';
    case 'date':
      return dateToText(v.v);
    case 'numeric':
    case 'bignumeric':
      return N.toUnscaledString(v.v);
    default:
      throw internal(`litToText: unexpected ${v.t}`);
  }
}

function arith(name: string, arity: number, compute: (a: readonly SValue[]) => SValue | undefined): BuiltinDef {
  return {
    name,
    arity,
    run: (a) => {
      const r = compute(a);
      if (r === undefined)
        throw arithmeticError(`ArithmeticError while evaluating (${name} ${a.map(litToText).join(' ')}).`);
      return r;
    },
  };
}

const pure = (
  name: string,
  arity: number,
  f: (a: readonly SValue[], m: MachineOps) => SValue | undefined,
): BuiltinDef => ({ name, arity, run: f });

const int64Op = (name: string, op: (x: bigint, y: bigint) => bigint | undefined) =>
  arith(name, 2, (a) => {
    const r = op(getInt(a, 0), getInt(a, 1));
    return r === undefined || !inInt64(r) ? undefined : int64(r);
  });

function expInt64(base: bigint, exp: bigint): bigint | undefined {
  if (exp < 0n) return undefined;
  if (exp === 0n) return 1n;
  if (base === 0n || base === 1n) return base;
  if (base === -1n) return exp % 2n === 0n ? 1n : -1n;
  let x = base;
  let y = 1n;
  let n = exp;
  while (n > 1n) {
    if (n % 2n === 1n) {
      y *= x;
      if (!inInt64(y)) return undefined;
    }
    x *= x;
    if (!inInt64(x)) return undefined;
    n >>= 1n;
  }
  const r = x * y;
  return inInt64(r) ? r : undefined;
}

const numOut = (n: N.Num | undefined): SValue | undefined => (n === undefined ? undefined : { t: 'numeric', v: n });
const bigOut = (n: N.Num | undefined): SValue | undefined => (n === undefined ? undefined : { t: 'bignumeric', v: n });

const cmp = (name: string, pred: (c: number) => boolean) => pure(name, 2, (a) => bool(pred(compareValues(a[0], a[1]))));

function toText(v: SValue): SValue {
  return text(litToText(v));
}

const sha256Hex = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

function malformedHex(s: string, cause = 'can not parse hex string'): Failure {
  return new Failure({ tag: 'Crypto', message: `MalformedByteEncoding(${s}, ${cause})` });
}

/** SECP256K1_WITH_ECDSA_BOOL: ECDSA over the given digest (hex), DER signature, DER SPKI key (all hex). */
function secp256k1Verify(signatureHex: string, messageHex: string, keyHex: string): SValue {
  if (!isLowerHex(signatureHex)) throw malformedHex(signatureHex, 'can not parse signature hex string');
  if (!isLowerHex(messageHex)) throw malformedHex(messageHex, 'can not parse message hex string');
  if (!isLowerHex(keyHex)) throw malformedHex(keyHex, 'can not parse DER encoded public key hex string');
  let key;
  try {
    key = parsePublicKey(Buffer.from(keyHex, 'hex'));
  } catch (e) {
    throw new Failure({ tag: 'Crypto', message: `MalformedKey(${keyHex}, ${(e as Error).message})` });
  }
  try {
    return bool(verifyDigest(Buffer.from(messageHex, 'hex'), Buffer.from(signatureHex, 'hex'), key));
  } catch (e) {
    throw new Failure({ tag: 'Crypto', message: `MalformedSignature(${signatureHex}, ${(e as Error).message})` });
  }
}

const defs: BuiltinDef[] = [
  // ------------------------------------------------------------------------------------------------------ Int64
  int64Op('ADD_INT64', (x, y) => x + y),
  int64Op('SUB_INT64', (x, y) => x - y),
  int64Op('MUL_INT64', (x, y) => x * y),
  int64Op('DIV_INT64', (x, y) => (y === 0n ? undefined : x / y)),
  int64Op('MOD_INT64', (x, y) => (y === 0n ? undefined : x % y)),
  int64Op('EXP_INT64', expInt64),
  pure('INT64_TO_TEXT', 1, (a) => text(getInt(a, 0).toString())),
  pure('TEXT_TO_INT64', 1, (a) => {
    const s = getText(a, 0);
    if (!/^[+-]?\d+$/.test(s)) return NONE;
    const v = BigInt(s);
    return inInt64(v) ? some(int64(v)) : NONE;
  }),
  // ---------------------------------------------------------------------------------------------------- Numeric
  arith('ADD_NUMERIC', 2, (a) => numOut(N.add(getNum(a, 0), getNum(a, 1)))),
  arith('SUB_NUMERIC', 2, (a) => numOut(N.sub(getNum(a, 0), getNum(a, 1)))),
  arith('MUL_NUMERIC', 3, (a) => numOut(N.mul(getNum(a, 0).s, getNum(a, 1), getNum(a, 2)))),
  arith('DIV_NUMERIC', 3, (a) => numOut(N.div(getNum(a, 0).s, getNum(a, 1), getNum(a, 2)))),
  arith('ROUND_NUMERIC', 2, (a) => numOut(N.round(getInt(a, 0), getNum(a, 1)))),
  arith('CAST_NUMERIC', 2, (a) => numOut(N.cast(getNum(a, 0).s, getNum(a, 1)))),
  pure('SHIFT_NUMERIC', 2, (a) => {
    const r = N.shift(getNum(a, 0).s, getNum(a, 1));
    if (!r) throw internal('SHIFT_NUMERIC out of bounds');
    return { t: 'numeric', v: r };
  }),
  arith('INT64_TO_NUMERIC', 2, (a) => numOut(N.fromInt64(getNum(a, 0).s, getInt(a, 1)))),
  arith('NUMERIC_TO_INT64', 1, (a) => {
    const r = N.toInt64(getNum(a, 0));
    return r === undefined ? undefined : int64(r);
  }),
  pure('NUMERIC_TO_TEXT', 1, (a) => toText(a[0])),
  pure('TEXT_TO_NUMERIC', 2, (a) => {
    const r = N.parseLenient(getNum(a, 0).s, getText(a, 1));
    return r ? some({ t: 'numeric', v: r }) : NONE;
  }),
  // ------------------------------------------------------------------------------------------------- BigNumeric
  pure('SCALE_BIGNUMERIC', 1, (a) => int64(BigInt(getBig(a, 0).s))),
  pure('PRECISION_BIGNUMERIC', 1, (a) => int64(BigInt(N.bigPrecision(getBig(a, 0))))),
  arith('ADD_BIGNUMERIC', 2, (a) => bigOut(N.bigAdd(getBig(a, 0), getBig(a, 1)))),
  arith('SUB_BIGNUMERIC', 2, (a) => bigOut(N.bigAdd(getBig(a, 0), N.bigNeg(getBig(a, 1))))),
  arith('MUL_BIGNUMERIC', 2, (a) => bigOut(N.bigMul(getBig(a, 0), getBig(a, 1)))),
  arith('DIV_BIGNUMERIC', 4, (a) => {
    const scale = getInt(a, 0);
    const mode = getInt(a, 1);
    if (scale < -BigInt(N.BIG_MAX_SCALE) || scale > BigInt(N.BIG_MAX_SCALE) || mode < 0n || mode > 7n) return undefined;
    return bigOut(N.bigDiv(Number(scale), Number(mode), getBig(a, 2), getBig(a, 3)));
  }),
  arith('SHIFT_RIGHT_BIGNUMERIC', 2, (a) => {
    const n = getInt(a, 0);
    const x = getBig(a, 1);
    if (x.u === 0n) return { t: 'bignumeric', v: { u: 0n, s: 0 } };
    if (n > BigInt(N.BIG_MAX_PRECISION) || n < -BigInt(N.BIG_MAX_PRECISION)) return undefined;
    return bigOut(N.bigShiftRight(Number(n), x));
  }),
  pure('NUMERIC_TO_BIGNUMERIC', 1, (a) => ({ t: 'bignumeric', v: N.strip(getNum(a, 0)) })),
  arith('BIGNUMERIC_TO_NUMERIC', 2, (a) => numOut(N.cast(getNum(a, 0).s, getBig(a, 1)))),
  pure('BIGNUMERIC_TO_TEXT', 1, (a) => text(N.toUnscaledString(getBig(a, 0)))),
  // ------------------------------------------------------------------------------------------------------- Text
  pure('APPEND_TEXT', 2, (a, m) => {
    const x = getText(a, 0);
    const y = getText(a, 1);
    m.charge(textBytes(x.length + y.length));
    return text(x + y);
  }),
  pure('EXPLODE_TEXT', 1, (a, m) => {
    const s = getText(a, 0);
    m.charge(listBytes(s.length, textBytes(2)));
    return listFromArray(explode(s).map(text));
  }),
  pure('IMPLODE_TEXT', 1, (a, m) => {
    let n = 0;
    for (let c = getList(a, 0); c; c = c.tl) {
      if (c.h.t !== 'text') throw internal(`type mismatch implodeText: expected SText, got ${c.h.t}`);
      n += c.h.v.length;
    }
    m.charge(textBytes(n));
    return text(
      listToArray(getList(a, 0))
        .map((x) => (x as { v: string }).v)
        .join(''),
    );
  }),
  pure('TEXT_TO_CODE_POINTS', 1, (a, m) => {
    const s = getText(a, 0);
    m.charge(listBytes(s.length, 2 * CELL_BYTES));
    return listFromArray(Array.from(s, (ch) => int64(BigInt(ch.codePointAt(0)!))));
  }),
  pure('CODE_POINTS_TO_TEXT', 1, (a, m) => {
    let n = 0;
    for (let c = getList(a, 0); c; c = c.tl) n++;
    m.charge(textBytes(2 * n));
    const r = fromCodePoints(listToArray(getList(a, 0)).map((x) => (x.t === 'int64' ? x.v : -1n)));
    if (!r.ok) throw internal(`invalid code point 0x${r.bad.toString(16)}.`);
    return text(r.text);
  }),
  pure('SHA256_TEXT', 1, (a) => text(sha256Hex(Buffer.from(getText(a, 0), 'utf8')))),
  pure('SHA256_HEX', 1, (a) => {
    const h = getText(a, 0);
    if (!isLowerHex(h)) throw malformedHex(h);
    return text(sha256Hex(Buffer.from(h, 'hex')));
  }),
  pure('TEXT_TO_HEX', 1, (a, m) => {
    const s = getText(a, 0);
    m.charge(textBytes(6 * s.length) + 3 * s.length);
    return text(Buffer.from(s, 'utf8').toString('hex'));
  }),
  pure('HEX_TO_TEXT', 1, (a, m) => {
    const h = getText(a, 0);
    m.charge(textBytes(h.length) + h.length);
    if (!isLowerHex(h)) throw malformedHex(h, 'can not parse hex string argument');
    return text(Buffer.from(h, 'hex').toString('utf8'));
  }),
  pure('KECCAK256_TEXT', 1, (a) => {
    const h = getText(a, 0);
    if (!isLowerHex(h)) throw malformedHex(h);
    return text(keccak256(Buffer.from(h, 'hex')).toString('hex'));
  }),
  pure('SECP256K1_BOOL', 3, (a) => {
    const m = getText(a, 1);
    if (!isLowerHex(m)) throw malformedHex(m, 'can not parse message hex string');
    return secp256k1Verify(getText(a, 0), sha256Hex(Buffer.from(m, 'hex')), getText(a, 2));
  }),
  pure('SECP256K1_WITH_ECDSA_BOOL', 3, (a) => secp256k1Verify(getText(a, 0), getText(a, 1), getText(a, 2))),
  pure('SECP256K1_VALIDATE_KEY', 1, (a) => {
    const k = getText(a, 0);
    if (!isLowerHex(k)) throw malformedHex(k);
    try {
      parsePublicKey(Buffer.from(k, 'hex'));
      return TRUE;
    } catch {
      return FALSE;
    }
  }),
  pure('TIMESTAMP_TO_TEXT', 1, (a) => toText(a[0])),
  pure('DATE_TO_TEXT', 1, (a) => toText(a[0])),
  pure('PARTY_TO_TEXT', 1, (a) => toText(a[0])),
  pure('TEXT_TO_PARTY', 1, (a) => {
    const s = getText(a, 0);
    return isParty(s) ? some({ t: 'party', v: s }) : NONE;
  }),
  pure('CONTRACT_ID_TO_TEXT', 1, (a, m) => {
    const c = a[0];
    if (c.t !== 'cid') throw typeError(0, 'SContractId', c);
    return m.isUpdateMachine ? NONE : some(text(c.v));
  }),
  // ------------------------------------------------------------------------------------------------------- Time
  pure('DATE_TO_UNIX_DAYS', 1, (a) => {
    const d = a[0];
    if (d.t !== 'date') throw typeError(0, 'SDate', d);
    return int64(BigInt(d.v));
  }),
  arith('UNIX_DAYS_TO_DATE', 1, (a) => {
    const d = getInt(a, 0);
    return dateInRange(d) ? { t: 'date', v: Number(d) } : undefined;
  }),
  pure('TIMESTAMP_TO_UNIX_MICROSECONDS', 1, (a) => {
    const t = a[0];
    if (t.t !== 'timestamp') throw typeError(0, 'STimestamp', t);
    return int64(t.v);
  }),
  arith('UNIX_MICROSECONDS_TO_TIMESTAMP', 1, (a) => {
    const t = getInt(a, 0);
    return timestampInRange(t) ? { t: 'timestamp', v: t } : undefined;
  }),
  // --------------------------------------------------------------------------------------------- comparisons
  pure('EQUAL', 2, (a) => bool(equalValues(a[0], a[1]))),
  cmp('LESS', (c) => c < 0),
  cmp('LESS_EQ', (c) => c <= 0),
  cmp('GREATER', (c) => c > 0),
  cmp('GREATER_EQ', (c) => c >= 0),
  // ------------------------------------------------------------------------------------------------------ Lists
  pure('FOLDL', 3, (a, m) => {
    m.foldl(a[0], a[1], getList(a, 2));
    return undefined;
  }),
  pure('FOLDR', 3, (a, m) => {
    let n = 0;
    for (let c = getList(a, 2); c; c = c.tl) n++;
    m.charge(8 * n);
    m.foldr(a[0], a[1], listToArray(getList(a, 2)));
    return undefined;
  }),
  pure('EQUAL_LIST', 3, (a, m) => {
    m.equalList(a[0], getList(a, 1), getList(a, 2));
    return undefined;
  }),
  // ------------------------------------------------------------------------------------------------------- Maps
  pure('TEXTMAP_EMPTY', 0, () => ({ t: 'textmap', v: null })),
  pure('TEXTMAP_INSERT', 3, (a, m) => {
    const t = getTextMap(a, 2);
    m.charge(pathBytes(t));
    return { t: 'textmap', v: mapInsert(t, getText(a, 0), a[1], compareText) };
  }),
  pure('TEXTMAP_LOOKUP', 2, (a) => {
    const v = mapLookup(getTextMap(a, 1), getText(a, 0), compareText);
    return v === undefined ? NONE : some(v);
  }),
  pure('TEXTMAP_DELETE', 2, (a, m) => {
    const t = getTextMap(a, 1);
    m.charge(pathBytes(t));
    return { t: 'textmap', v: mapDelete(t, getText(a, 0), compareText) };
  }),
  pure(
    'TEXTMAP_TO_LIST',
    1,
    (a, m) =>
      charged(m, listBytes(mapSize(getTextMap(a, 0)), 2 * CELL_BYTES + 32)) ??
      consList(
        mapFoldRight<string, SValue, Cons | null>(getTextMap(a, 0), null, (k, v, tl) => ({
          h: { t: 'struct', f: ['key', 'value'], v: [text(k), v] },
          tl,
        })),
      ),
  ),
  pure('TEXTMAP_SIZE', 1, (a) => int64(BigInt(mapSize(getTextMap(a, 0))))),
  pure('GENMAP_EMPTY', 0, () => ({ t: 'genmap', v: null })),
  pure('GENMAP_INSERT', 3, (a, m) => {
    const t = getGenMap(a, 2);
    m.charge(pathBytes(t));
    return { t: 'genmap', v: mapInsert(t, getKey(a, 0), a[1], compareValues) };
  }),
  pure('GENMAP_LOOKUP', 2, (a) => {
    const v = mapLookup(getGenMap(a, 1), getKey(a, 0), compareValues);
    return v === undefined ? NONE : some(v);
  }),
  pure('GENMAP_DELETE', 2, (a, m) => {
    const t = getGenMap(a, 1);
    m.charge(pathBytes(t));
    return { t: 'genmap', v: mapDelete(t, getKey(a, 0), compareValues) };
  }),
  pure(
    'GENMAP_KEYS',
    1,
    (a, m) =>
      charged(m, listBytes(mapSize(getGenMap(a, 0)), 0)) ??
      consList(mapFoldRight<SValue, SValue, Cons | null>(getGenMap(a, 0), null, (k, _, tl) => ({ h: k, tl }))),
  ),
  pure(
    'GENMAP_VALUES',
    1,
    (a, m) =>
      charged(m, listBytes(mapSize(getGenMap(a, 0)), 0)) ??
      consList(mapFoldRight<SValue, SValue, Cons | null>(getGenMap(a, 0), null, (_, v, tl) => ({ h: v, tl }))),
  ),
  pure('GENMAP_SIZE', 1, (a) => int64(BigInt(mapSize(getGenMap(a, 0))))),
  // --------------------------------------------------------------------------------------------------- Others
  pure('COERCE_CONTRACT_ID', 1, (a) => a[0]),
  pure('TRACE', 2, (a, m) => {
    const s = getText(a, 0);
    m.charge(textBytes(s.length));
    m.trace(s);
    return a[1];
  }),
  pure('ERROR', 1, (a) => {
    throw new Failure({ tag: 'UserError', message: getText(a, 0) });
  }),
  pure('ANY_EXCEPTION_MESSAGE', 1, (a, m) => {
    const e = a[0];
    if (e.t !== 'any') throw typeError(0, 'Exception', e);
    m.exceptionMessage(e);
    return undefined;
  }),
  pure('TYPE_REP_TYCON_NAME', 1, (a) => {
    const r = a[0];
    if (r.t !== 'typerep') throw typeError(0, 'STypeRep', r);
    return r.ty.tag === 'con' ? some(text(`${r.ty.tycon.packageId}:${r.ty.tycon.module}:${r.ty.tycon.name}`)) : NONE;
  }),
  pure('FAIL_WITH_STATUS', 4, (a) => {
    const meta = new Map<string, string>();
    mapForEach(getTextMap(a, 3), (k, v) => {
      if (v.t !== 'text') throw typeError(3, 'TextMap Text', v);
      meta.set(k, v.v);
    });
    throw new Failure({
      tag: 'FailureStatus',
      errorId: getText(a, 0),
      failureCategory: Number(getInt(a, 1)),
      message: getText(a, 2),
      metadata: meta,
    });
  }),
];

export const BUILTINS: Partial<Record<BuiltinFunction, BuiltinDef>> = Object.fromEntries(defs.map((d) => [d.name, d]));
