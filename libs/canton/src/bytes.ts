import { CantonError } from './errors';

/** Bytes accepted by the library: a Buffer/Uint8Array. */
export type Bytes = Uint8Array;

const HEX_RE = /^(?:[0-9a-fA-F]{2})*$/;

/** True if `s` is an even-length hexadecimal string (either case). */
export function isHex(s: string): boolean {
  return typeof s === 'string' && HEX_RE.test(s);
}

/** Strict hex decoding (Buffer.from(s, 'hex') silently truncates on bad input; this throws). */
export function hexToBytes(s: string, what = 'hex string'): Buffer {
  if (!isHex(s)) throw new CantonError(`Invalid ${what}: expected an even-length hexadecimal string`);
  return Buffer.from(s, 'hex');
}

export function toBuffer(b: Uint8Array): Buffer {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

export function int32be(n: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeInt32BE(n | 0, 0);
  return b;
}

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

/**
 * Parses a signed 64-bit integer given as bigint, safe-integer number or decimal string.
 * Throws on anything else (no silent precision loss).
 */
export function toInt64(v: bigint | number | string, what = 'int64'): bigint {
  let n: bigint;
  if (typeof v === 'bigint') n = v;
  else if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) throw new CantonError(`Invalid ${what}: ${v} is not a safe integer`);
    n = BigInt(v);
  } else if (typeof v === 'string' && /^[+-]?\d+$/.test(v)) n = BigInt(v);
  else throw new CantonError(`Invalid ${what}: ${String(v)}`);
  if (n < INT64_MIN || n > INT64_MAX) throw new CantonError(`Invalid ${what}: ${n} out of the int64 range`);
  return n;
}

export function int64be(v: bigint | number | string, what?: string): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeBigInt64BE(toInt64(v, what), 0);
  return b;
}
