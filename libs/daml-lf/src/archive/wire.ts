/**
 * The protobuf wire format, by hand: a reader over one buffer (no allocation per message, no generated classes) and
 * the enum tables of `daml_lf2.proto` shared by the decoder and the encoder. Field numbers are Daml-LF's facts.
 */
import { ArchiveParseError } from '@ledgerline/canton';
import type { BuiltinFunction, BuiltinType, FailureCategory, RoundingMode } from '../language/ast';

/**
 * An archive the decoder refuses: malformed protobuf, a dangling interning index, a form the LF version forbids. It is
 * an ArchiveParseError (Canton reports both as DAR_PARSE_ERROR reasons).
 */
export class LfDecodeError extends ArchiveParseError {
  constructor(message: string) {
    super(message);
    this.name = 'LfDecodeError';
  }
}

export const WIRE_VARINT = 0;
export const WIRE_I64 = 1;
export const WIRE_LEN = 2;
export const WIRE_I32 = 5;

const utf8 = new TextDecoder('utf-8', { fatal: true });

export class WireReader {
  pos = 0;
  private readonly view: DataView;
  constructor(readonly buf: Uint8Array) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  /** A varint as an unsigned 32-bit number (higher bits of a 64-bit varint are read and dropped, as protobuf does for int32). */
  uint32(): number {
    const buf = this.buf;
    let pos = this.pos;
    let b = buf[pos++];
    let v = b & 0x7f;
    if (b >= 0x80) {
      b = buf[pos++];
      v |= (b & 0x7f) << 7;
      if (b >= 0x80) {
        b = buf[pos++];
        v |= (b & 0x7f) << 14;
        if (b >= 0x80) {
          b = buf[pos++];
          v |= (b & 0x7f) << 21;
          if (b >= 0x80) {
            b = buf[pos++];
            v |= (b & 0x0f) << 28;
            let n = 0;
            while (b >= 0x80) {
              if (++n > 5) throw new LfDecodeError('malformed varint');
              b = buf[pos++];
            }
          }
        }
      }
    }
    if (pos > buf.length) throw new LfDecodeError('truncated message: varint runs past the end');
    this.pos = pos;
    return v >>> 0;
  }

  int32(): number {
    return this.uint32() | 0;
  }

  bool(): boolean {
    return this.uint32() !== 0;
  }

  /** A varint as a 64-bit two's complement bigint. */
  varint64(): bigint {
    let result = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.buf.length) throw new LfDecodeError('truncated message: varint runs past the end');
      const b = this.buf[this.pos++];
      result |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return BigInt.asIntN(64, result);
      shift += 7n;
    }
    throw new LfDecodeError('malformed varint');
  }

  sint64(): bigint {
    const u = BigInt.asUintN(64, this.varint64());
    return (u >> 1n) ^ -(u & 1n);
  }

  sfixed64(): bigint {
    if (this.pos + 8 > this.buf.length) throw new LfDecodeError('truncated message: fixed64 runs past the end');
    const v = this.view.getBigInt64(this.pos, true);
    this.pos += 8;
    return v;
  }

  /** The end offset of a length-delimited field whose length is next. */
  end(): number {
    const len = this.uint32();
    const end = this.pos + len;
    if (end > this.buf.length) throw new LfDecodeError('truncated message: a length-delimited field runs past the end');
    return end;
  }

  bytes(): Uint8Array {
    const end = this.end();
    const out = this.buf.subarray(this.pos, end);
    this.pos = end;
    return out;
  }

  string(): string {
    const end = this.end();
    let s: string;
    try {
      s = utf8.decode(this.buf.subarray(this.pos, end));
    } catch {
      throw new LfDecodeError('invalid UTF-8 in a string field');
    }
    this.pos = end;
    return s;
  }

  skip(wire: number): void {
    switch (wire) {
      case WIRE_VARINT:
        this.varint64();
        return;
      case WIRE_I64:
        this.pos += 8;
        break;
      case WIRE_LEN:
        this.pos = this.end();
        return;
      case WIRE_I32:
        this.pos += 4;
        break;
      default:
        throw new LfDecodeError(`unsupported wire type ${wire}`);
    }
    if (this.pos > this.buf.length) throw new LfDecodeError('truncated message');
  }
}

function table<T extends string>(entries: Record<T, number>): { byName: Record<T, number>; byNumber: Map<number, T> } {
  const byNumber = new Map<number, T>();
  for (const [k, v] of Object.entries(entries) as Array<[T, number]>) byNumber.set(v, k);
  return { byName: entries, byNumber };
}

export const BUILTIN_TYPES = table<BuiltinType>({
  UNIT: 0,
  BOOL: 1,
  INT64: 2,
  DATE: 3,
  TIMESTAMP: 4,
  NUMERIC: 5,
  PARTY: 6,
  TEXT: 7,
  CONTRACT_ID: 8,
  OPTIONAL: 9,
  LIST: 10,
  GENMAP: 11,
  ANY: 13,
  ANY_EXCEPTION: 14,
  TYPE_REP: 15,
  ARROW: 16,
  UPDATE: 17,
  FAILURE_CATEGORY: 18,
  TEXTMAP: 19,
  BIGNUMERIC: 1002,
  ROUNDING_MODE: 1003,
});

export const BUILTIN_FUNCTIONS = table<BuiltinFunction>({
  TRACE: 0,
  ERROR: 1,
  EQUAL: 2,
  LESS_EQ: 3,
  LESS: 4,
  GREATER_EQ: 5,
  GREATER: 6,
  ADD_INT64: 7,
  SUB_INT64: 8,
  MUL_INT64: 9,
  DIV_INT64: 10,
  MOD_INT64: 11,
  EXP_INT64: 12,
  ADD_NUMERIC: 13,
  SUB_NUMERIC: 14,
  MUL_NUMERIC: 15,
  DIV_NUMERIC: 16,
  ROUND_NUMERIC: 17,
  CAST_NUMERIC: 18,
  SHIFT_NUMERIC: 19,
  INT64_TO_NUMERIC: 20,
  NUMERIC_TO_INT64: 21,
  INT64_TO_TEXT: 22,
  NUMERIC_TO_TEXT: 23,
  TIMESTAMP_TO_TEXT: 25,
  DATE_TO_TEXT: 26,
  PARTY_TO_TEXT: 27,
  TEXT_TO_PARTY: 28,
  TEXT_TO_INT64: 29,
  TEXT_TO_NUMERIC: 30,
  CONTRACT_ID_TO_TEXT: 31,
  SHA256_TEXT: 32,
  EXPLODE_TEXT: 33,
  APPEND_TEXT: 34,
  IMPLODE_TEXT: 35,
  CODE_POINTS_TO_TEXT: 36,
  TEXT_TO_CODE_POINTS: 37,
  DATE_TO_UNIX_DAYS: 38,
  UNIX_DAYS_TO_DATE: 39,
  TIMESTAMP_TO_UNIX_MICROSECONDS: 40,
  UNIX_MICROSECONDS_TO_TIMESTAMP: 41,
  COERCE_CONTRACT_ID: 42,
  FOLDL: 43,
  FOLDR: 44,
  EQUAL_LIST: 45,
  GENMAP_EMPTY: 52,
  GENMAP_INSERT: 53,
  GENMAP_LOOKUP: 54,
  GENMAP_DELETE: 55,
  GENMAP_KEYS: 56,
  GENMAP_VALUES: 57,
  GENMAP_SIZE: 58,
  ANY_EXCEPTION_MESSAGE: 59,
  TEXTMAP_EMPTY: 60,
  TEXTMAP_INSERT: 61,
  TEXTMAP_LOOKUP: 62,
  TEXTMAP_DELETE: 63,
  TEXTMAP_TO_LIST: 64,
  TEXTMAP_SIZE: 65,
  FAIL_WITH_STATUS: 66,
  KECCAK256_TEXT: 67,
  SECP256K1_BOOL: 68,
  HEX_TO_TEXT: 69,
  TEXT_TO_HEX: 70,
  SHA256_HEX: 71,
  SECP256K1_WITH_ECDSA_BOOL: 72,
  SECP256K1_VALIDATE_KEY: 73,
  SCALE_BIGNUMERIC: 2001,
  PRECISION_BIGNUMERIC: 2002,
  ADD_BIGNUMERIC: 2003,
  SUB_BIGNUMERIC: 2004,
  MUL_BIGNUMERIC: 2005,
  DIV_BIGNUMERIC: 2006,
  SHIFT_RIGHT_BIGNUMERIC: 2007,
  BIGNUMERIC_TO_NUMERIC: 2008,
  NUMERIC_TO_BIGNUMERIC: 2009,
  BIGNUMERIC_TO_TEXT: 2010,
  TYPE_REP_TYCON_NAME: 3011,
  EXTERNAL_CALL: 5001,
});

export const BUILTIN_CONS = table<'UNIT' | 'FALSE' | 'TRUE'>({ UNIT: 0, FALSE: 1, TRUE: 2 });

export const ROUNDING_MODES = table<RoundingMode>({
  UP: 0,
  DOWN: 1,
  CEILING: 2,
  FLOOR: 3,
  HALF_UP: 4,
  HALF_DOWN: 5,
  HALF_EVEN: 6,
  UNNECESSARY: 7,
});

export const FAILURE_CATEGORIES = table<FailureCategory>({
  INVALID_INDEPENDENT_OF_SYSTEM_STATE: 0,
  INVALID_GIVEN_CURRENT_SYSTEM_STATE_OTHER: 1,
});
