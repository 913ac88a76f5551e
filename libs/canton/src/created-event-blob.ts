import { Metadata_InputContract, type Create } from '@canton-network/core-ledger-proto';

/**
 * Hand-written protobuf encoder for `Metadata.InputContract { v1: Create, created_at }` — the bytes behind a
 * `createdEventBlob`. It produces exactly what `Metadata_InputContract.toBinary` (protobuf-ts) writes, without its
 * fork/join writer: pass 1 validates the tree and computes every sub-message body length and string byte length
 * (pre-order, into `lens`); pass 2 writes into one Buffer of the exact size, consuming `lens` in the same order.
 *
 * Anything the fast path does not model exactly — unknown fields kept by protobuf-ts on a decoded message
 * (`Symbol.for('protobuf-ts/unknown')`, e.g. contract keys on a Create), a field of an unexpected type, an unknown
 * oneof kind, an int64/timestamp string that is not a plain in-range decimal — makes it give up, and the message is
 * encoded by protobuf-ts instead (which also reproduces its errors for invalid input).
 *
 * Wire layout (field number, wire type; strings skipped when '', sub-messages written when present):
 * - InputContract: 1 v1 Create (LD); 1000 created_at uint64 (varint, skipped when 0); 1002 event_blob (always empty here).
 * - Create: 1 lf_version, 2 contract_id, 3 package_name (strings); 4 template_id Identifier; 5 argument Value;
 *   6 signatories, 7 stakeholders (repeated strings, each element written, even '').
 * - Identifier: 1 package_id, 2 module_name, 3 entity_name.
 * - Value (oneof `sum`, the set kind always written): 1 unit Empty; 2 bool; 3 int64 (sint64, zigzag varint);
 *   4 date (int32 varint, negative → 10 bytes); 5 timestamp (sfixed64); 6 numeric, 7 party, 8 text, 9 contract_id
 *   (strings); 10 optional; 11 list; 12 text_map; 13 gen_map; 14 record; 15 variant; 16 enum.
 * - Record: 1 record_id, 2 fields (RecordField: 1 label, 2 value). Variant: 1 variant_id, 2 constructor, 3 value.
 *   Enum: 1 enum_id, 2 constructor. List: 1 elements. Optional: 1 value. TextMap: 1 entries (1 key string, 2 value).
 *   GenMap: 1 entries (1 key Value, 2 value Value).
 */

const UNKNOWN_FIELDS = Symbol.for('protobuf-ts/unknown');

/** Thrown (never escapes) when the fast path cannot encode the input exactly. */
const FALLBACK: unique symbol = Symbol('created-event-blob/fallback');

const TWO_32 = 0x1_0000_0000;
/** Above this magnitude a zigzag-encoded int64 is no longer exact as a double; such values go through BigInt. */
const ZIGZAG_NUMBER_LIMIT = 2 ** 51;
/** Strings up to this many UTF-16 units are measured and copied in JS; longer ones by Buffer's native UTF-8/latin1 code. */
const SHORT_STRING = 16;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

// Value oneof tags: (fieldNo << 3) | wireType.
const TAG_UNIT = 0x0a; // 1, LD
const TAG_BOOL = 0x10; // 2, varint
const TAG_INT64 = 0x18; // 3, varint
const TAG_DATE = 0x20; // 4, varint
const TAG_TIMESTAMP = 0x29; // 5, fixed64
const TAG_NUMERIC = 0x32; // 6, LD
const TAG_PARTY = 0x3a; // 7, LD
const TAG_TEXT = 0x42; // 8, LD
const TAG_CONTRACT_ID = 0x4a; // 9, LD
const TAG_OPTIONAL = 0x52; // 10, LD
const TAG_LIST = 0x5a; // 11, LD
const TAG_TEXT_MAP = 0x62; // 12, LD
const TAG_GEN_MAP = 0x6a; // 13, LD
const TAG_RECORD = 0x72; // 14, LD
const TAG_VARIANT = 0x7a; // 15, LD
// 16 enum, LD: (16 << 3) | 2 = 130 → varint 0x82 0x01
const TAG_ENUM_0 = 0x82;
const TAG_ENUM_1 = 0x01;
// Length-delimited tags of fields 1..7 (sub-messages and strings; Create uses all seven).
const LD1 = 0x0a;
const LD2 = 0x12;
const LD3 = 0x1a;
const LD4 = 0x22;
const LD5 = 0x2a;
const LD6 = 0x32;
const LD7 = 0x3a;
// InputContract.created_at: field 1000, varint → (1000 << 3) | 0 = 8000 → 0xc0 0x3e
const TAG_CREATED_AT_0 = 0xc0;
const TAG_CREATED_AT_1 = 0x3e;

/** Messages are read loosely: pass 1 checks every field it reads, so pass 2 can trust the shapes. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- read loosely on purpose: pass 1 validates every field
type Msg = any;

// ---- shared state of one encoding (the encoder never calls out to user code, so it is not re-entered) ----
/** Pass 1 output, consumed in the same order by pass 2: sub-message body lengths, string byte lengths, pre-parsed numbers. */
let lens: number[] = [];
let n = 0; // pass 1 write index into lens
let k = 0; // pass 2 read index into lens
const EMPTY = Buffer.alloc(0);
let buf: Buffer = EMPTY;
let o = 0; // pass 2 write offset

function fail(): never {
  throw FALLBACK;
}

/** Bytes of an unsigned 32-bit varint. */
function v32Size(x: number): number {
  return x < 0x80 ? 1 : x < 0x4000 ? 2 : x < 0x20_0000 ? 3 : x < 0x1000_0000 ? 4 : 5;
}

/** Bytes of a varint of a non-negative integer below 2^53. */
function vNumSize(x: number): number {
  let s = 1;
  while (x >= 0x80) {
    x = Math.floor(x / 0x80);
    s++;
  }
  return s;
}

function vBigSize(x: bigint): number {
  let s = 1;
  while (x >= 0x80n) {
    x >>= 7n;
    s++;
  }
  return s;
}

// ------------------------------------------------------------------------------------------------ pass 1: size

/** A message field is written when its value is truthy; a truthy non-object cannot be encoded here. */
function present(m: unknown): boolean {
  if (!m) return false;
  if (typeof m !== 'object') fail();
  return true;
}

function noUnknown(m: Msg): void {
  const u = m[UNKNOWN_FIELDS];
  if (u !== undefined && !(Array.isArray(u) && u.length === 0)) fail();
}

/** `m` as a sub-message: an object without unknown fields (anything else makes the fast path give up). */
function message(m: unknown): Msg {
  if (!m || typeof m !== 'object') fail();
  noUnknown(m);
  return m;
}

/** Records and returns the UTF-8 byte length of a string. */
function strLen(s: unknown): number {
  if (typeof s !== 'string') fail();
  const l = s.length;
  let len = l;
  if (l > SHORT_STRING) {
    len = Buffer.byteLength(s, 'utf8'); // lone surrogates count as U+FFFD (3 bytes), as TextEncoder writes them
  } else {
    for (let i = 0; i < l; i++) {
      if (s.charCodeAt(i) >= 0x80) {
        len = Buffer.byteLength(s, 'utf8');
        break;
      }
    }
  }
  lens[n++] = len;
  return len;
}

/** Size of a length-delimited string field with a one-byte tag. */
function strField(s: unknown): number {
  const l = strLen(s);
  return 1 + v32Size(l) + l;
}

/**
 * A plain decimal integer string (`-?[0-9]+`) as a number when its magnitude is at most 2^53 - 1; `null` when it is
 * well-formed but larger; fails when it is not such a string.
 */
function parseDecimal(s: unknown): number | null {
  if (typeof s !== 'string') fail();
  const l = s.length;
  let i = 0;
  let neg = false;
  if (l > 0 && s.charCodeAt(0) === 0x2d) {
    neg = true;
    i = 1;
  }
  if (i === l) fail();
  let v = 0;
  for (; i < l; i++) {
    const d = s.charCodeAt(i) - 0x30;
    if (d < 0 || d > 9) fail();
    v = v * 10 + d; // monotone rounding: once inexact, v exceeds MAX_SAFE_INTEGER
  }
  if (v > Number.MAX_SAFE_INTEGER) return null;
  return neg ? -v : v;
}

function int64Big(s: string): bigint {
  const v = BigInt(s);
  if (v < INT64_MIN || v > INT64_MAX) fail();
  return v;
}

function zigzagBig(v: bigint): bigint {
  return v >= 0n ? v << 1n : (-v << 1n) - 1n;
}

/** Size of the int64 varint; records the zigzag value, or -1 when pass 2 must redo it with BigInt. */
function int64Size(s: unknown): number {
  const v = parseDecimal(s);
  if (v !== null && v < ZIGZAG_NUMBER_LIMIT && v > -ZIGZAG_NUMBER_LIMIT) {
    const z = v >= 0 ? v * 2 : -v * 2 - 1; // -0 → -0, written as 0 like protobuf-ts
    lens[n++] = z;
    return vNumSize(z);
  }
  lens[n++] = -1;
  return vBigSize(zigzagBig(int64Big(s as string)));
}

/** Validates a timestamp; records it as a number, or NaN when pass 2 must use BigInt. */
function timestampCheck(s: unknown): void {
  const v = parseDecimal(s);
  if (v === null) {
    int64Big(s as string);
    lens[n++] = NaN;
  } else {
    lens[n++] = v;
  }
}

function sizeIdentifier(m: Msg): number {
  noUnknown(m);
  let s = 0;
  const a = m.packageId;
  if (a !== '') s += strField(a);
  const b = m.moduleName;
  if (b !== '') s += strField(b);
  const c = m.entityName;
  if (c !== '') s += strField(c);
  return s;
}

/** Size of an Identifier field (tag + length + body), body length recorded. */
function identifierField(m: Msg): number {
  const slot = n++;
  const b = sizeIdentifier(m);
  lens[slot] = b;
  return 1 + v32Size(b) + b;
}

/** Size of a Value field with a one-byte tag (tag + length + body), body length recorded. */
function valueField(m: Msg): number {
  const slot = n++;
  const b = sizeValue(m);
  lens[slot] = b;
  return 1 + v32Size(b) + b;
}

function sizeValue(m: Msg): number {
  noUnknown(m);
  const sum = m.sum;
  if (!sum || typeof sum !== 'object') fail();
  let slot: number;
  let b: number;
  switch (sum.oneofKind) {
    case undefined:
      return 0;
    case 'unit':
      message(sum.unit);
      return 2;
    case 'bool':
      if (typeof sum.bool !== 'boolean') fail();
      return 2;
    case 'int64':
      return 1 + int64Size(sum.int64);
    case 'date': {
      const d = sum.date;
      if (typeof d !== 'number' || (d | 0) !== d) fail();
      return d < 0 ? 11 : 1 + v32Size(d);
    }
    case 'timestamp':
      timestampCheck(sum.timestamp);
      return 9;
    case 'numeric':
      return strField(sum.numeric);
    case 'party':
      return strField(sum.party);
    case 'text':
      return strField(sum.text);
    case 'contractId':
      return strField(sum.contractId);
    case 'optional': {
      const x = message(sum.optional);
      slot = n++;
      b = present(x.value) ? valueField(x.value) : 0;
      break;
    }
    case 'list': {
      const x = message(sum.list);
      slot = n++;
      const es = x.elements;
      if (!Array.isArray(es)) fail();
      b = 0;
      for (let i = 0; i < es.length; i++) {
        const e = es[i];
        if (!e || typeof e !== 'object') fail();
        b += valueField(e);
      }
      break;
    }
    case 'textMap':
    case 'genMap': {
      // The two map kinds differ only in the key: a string (text map) or a Value (gen map).
      const text = sum.oneofKind === 'textMap';
      const x = message(text ? sum.textMap : sum.genMap);
      slot = n++;
      const es = x.entries;
      if (!Array.isArray(es)) fail();
      b = 0;
      for (let i = 0; i < es.length; i++) {
        const e = message(es[i]);
        const eslot = n++;
        let eb = 0;
        const key = e.key;
        if (text ? key !== '' : present(key)) eb += text ? strField(key) : valueField(key);
        if (present(e.value)) eb += valueField(e.value);
        lens[eslot] = eb;
        b += 1 + v32Size(eb) + eb;
      }
      break;
    }
    case 'record': {
      const x = sum.record;
      if (!x || typeof x !== 'object') fail();
      slot = n++;
      b = sizeRecord(x);
      break;
    }
    case 'variant': {
      const x = message(sum.variant);
      slot = n++;
      b = 0;
      if (present(x.variantId)) b += identifierField(x.variantId);
      const c = x.constructor; // an own property on protobuf-ts messages; Object's constructor (a function) fails below
      if (c !== '') b += strField(c);
      if (present(x.value)) b += valueField(x.value);
      break;
    }
    case 'enum': {
      const x = message(sum.enum);
      slot = n++;
      b = 0;
      if (present(x.enumId)) b += identifierField(x.enumId);
      const c = x.constructor;
      if (c !== '') b += strField(c);
      lens[slot] = b;
      return 2 + v32Size(b) + b; // two-byte tag
    }
    default:
      return fail();
  }
  lens[slot] = b;
  return 1 + v32Size(b) + b;
}

function sizeRecord(x: Msg): number {
  noUnknown(x);
  let b = 0;
  if (present(x.recordId)) b += identifierField(x.recordId);
  const fs = x.fields;
  if (!Array.isArray(fs)) fail();
  for (let i = 0; i < fs.length; i++) {
    const f = message(fs[i]);
    const fslot = n++;
    let fb = 0;
    const label = f.label;
    if (label !== '') fb += strField(label);
    if (present(f.value)) fb += valueField(f.value);
    lens[fslot] = fb;
    b += 1 + v32Size(fb) + fb;
  }
  return b;
}

function sizeStrings(xs: unknown): number {
  if (!Array.isArray(xs)) fail();
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += strField(xs[i]);
  return s;
}

function sizeCreate(c: Msg): number {
  noUnknown(c);
  let s = 0;
  const a = c.lfVersion;
  if (a !== '') s += strField(a);
  const b = c.contractId;
  if (b !== '') s += strField(b);
  const p = c.packageName;
  if (p !== '') s += strField(p);
  if (present(c.templateId)) s += identifierField(c.templateId);
  if (present(c.argument)) s += valueField(c.argument);
  s += sizeStrings(c.signatories);
  s += sizeStrings(c.stakeholders);
  return s;
}

// ------------------------------------------------------------------------------------------------ pass 2: write

function w32(x: number): void {
  while (x >= 0x80) {
    buf[o++] = (x & 0x7f) | 0x80;
    x >>>= 7;
  }
  buf[o++] = x;
}

/** Varint of a non-negative integer below 2^53. */
function wNum(x: number): void {
  if (x < 0x8000_0000) return w32(x);
  while (x >= 0x80) {
    buf[o++] = (x % 0x80) | 0x80;
    x = Math.floor(x / 0x80);
  }
  buf[o++] = x;
}

function wBig(x: bigint): void {
  while (x >= 0x80n) {
    buf[o++] = Number(x & 0x7fn) | 0x80;
    x >>= 7n;
  }
  buf[o++] = Number(x);
}

/** Writes a string field: tag, recorded byte length, UTF-8 bytes. */
function wStr(tag: number, s: string): void {
  const len = lens[k++];
  buf[o++] = tag;
  w32(len);
  if (len === s.length) {
    // every non-ASCII UTF-16 unit takes more than one UTF-8 byte, so equal lengths mean ASCII
    if (len <= SHORT_STRING) {
      for (let i = 0; i < len; i++) buf[o + i] = s.charCodeAt(i);
    } else {
      buf.write(s, o, len, 'latin1');
    }
  } else {
    buf.write(s, o, len, 'utf8'); // lone surrogates → U+FFFD, like TextEncoder
  }
  o += len;
}

/** Writes tag and recorded body length of a sub-message (one-byte tag). */
function wHead(tag: number): void {
  buf[o++] = tag;
  w32(lens[k++]);
}

function writeIdentifier(m: Msg): void {
  if (m.packageId !== '') wStr(LD1, m.packageId);
  if (m.moduleName !== '') wStr(LD2, m.moduleName);
  if (m.entityName !== '') wStr(LD3, m.entityName);
}

function writeValue(m: Msg): void {
  const sum = m.sum;
  switch (sum.oneofKind) {
    case undefined:
      return;
    case 'unit':
      buf[o++] = TAG_UNIT;
      buf[o++] = 0;
      return;
    case 'bool':
      buf[o++] = TAG_BOOL;
      buf[o++] = sum.bool ? 1 : 0;
      return;
    case 'int64': {
      buf[o++] = TAG_INT64;
      const z = lens[k++];
      if (z >= 0) wNum(z);
      else wBig(zigzagBig(BigInt(sum.int64)));
      return;
    }
    case 'date': {
      buf[o++] = TAG_DATE;
      const d: number = sum.date;
      if (d >= 0) {
        w32(d);
      } else {
        // sign-extended to 64 bits: low 32 bits as given, high 32 bits all ones → 10 bytes
        let lo = d >>> 0;
        let hi = 0xffff_ffff;
        while (hi !== 0 || lo >= 0x80) {
          buf[o++] = (lo & 0x7f) | 0x80;
          lo = ((lo >>> 7) | (hi << 25)) >>> 0;
          hi >>>= 7;
        }
        buf[o++] = lo;
      }
      return;
    }
    case 'timestamp': {
      buf[o++] = TAG_TIMESTAMP;
      const v = lens[k++];
      if (v === v) {
        // two's complement little endian: low word from a non-negative remainder, high word signed
        const lo = ((v % TWO_32) + TWO_32) % TWO_32;
        buf.writeUInt32LE(lo, o);
        buf.writeInt32LE((v - lo) / TWO_32, o + 4);
      } else {
        buf.writeBigInt64LE(BigInt(sum.timestamp), o);
      }
      o += 8;
      return;
    }
    case 'numeric':
      return wStr(TAG_NUMERIC, sum.numeric);
    case 'party':
      return wStr(TAG_PARTY, sum.party);
    case 'text':
      return wStr(TAG_TEXT, sum.text);
    case 'contractId':
      return wStr(TAG_CONTRACT_ID, sum.contractId);
    case 'optional': {
      wHead(TAG_OPTIONAL);
      const x = sum.optional;
      if (x.value) {
        wHead(LD1);
        writeValue(x.value);
      }
      return;
    }
    case 'list': {
      wHead(TAG_LIST);
      const es = sum.list.elements;
      for (let i = 0; i < es.length; i++) {
        wHead(LD1);
        writeValue(es[i]);
      }
      return;
    }
    case 'textMap':
    case 'genMap': {
      const text = sum.oneofKind === 'textMap';
      wHead(text ? TAG_TEXT_MAP : TAG_GEN_MAP);
      const es = text ? sum.textMap.entries : sum.genMap.entries;
      for (let i = 0; i < es.length; i++) {
        const e = es[i];
        wHead(LD1);
        if (text) {
          if (e.key !== '') wStr(LD1, e.key);
        } else if (e.key) {
          wHead(LD1);
          writeValue(e.key);
        }
        if (e.value) {
          wHead(LD2);
          writeValue(e.value);
        }
      }
      return;
    }
    case 'record':
      wHead(TAG_RECORD);
      return writeRecord(sum.record);
    case 'variant': {
      wHead(TAG_VARIANT);
      const x = sum.variant;
      if (x.variantId) {
        wHead(LD1);
        writeIdentifier(x.variantId);
      }
      if (x.constructor !== '') wStr(LD2, x.constructor);
      if (x.value) {
        wHead(LD3);
        writeValue(x.value);
      }
      return;
    }
    case 'enum': {
      buf[o++] = TAG_ENUM_0;
      buf[o++] = TAG_ENUM_1;
      w32(lens[k++]);
      const x = sum.enum;
      if (x.enumId) {
        wHead(LD1);
        writeIdentifier(x.enumId);
      }
      if (x.constructor !== '') wStr(LD2, x.constructor);
      return;
    }
  }
}

function writeRecord(x: Msg): void {
  if (x.recordId) {
    wHead(LD1);
    writeIdentifier(x.recordId);
  }
  const fs = x.fields;
  for (let i = 0; i < fs.length; i++) {
    const f = fs[i];
    wHead(LD2);
    if (f.label !== '') wStr(LD1, f.label);
    if (f.value) {
      wHead(LD2);
      writeValue(f.value);
    }
  }
}

function writeCreate(c: Msg): void {
  if (c.lfVersion !== '') wStr(LD1, c.lfVersion);
  if (c.contractId !== '') wStr(LD2, c.contractId);
  if (c.packageName !== '') wStr(LD3, c.packageName);
  if (c.templateId) {
    wHead(LD4);
    writeIdentifier(c.templateId);
  }
  if (c.argument) {
    wHead(LD5);
    writeValue(c.argument);
  }
  const sigs = c.signatories;
  for (let i = 0; i < sigs.length; i++) wStr(LD6, sigs[i]);
  const sh = c.stakeholders;
  for (let i = 0; i < sh.length; i++) wStr(LD7, sh[i]);
}

// ------------------------------------------------------------------------------------------------ entry points

function encodeFast(create: Create, createdAtMicros: bigint): Buffer {
  n = 0;
  if (!create || typeof create !== 'object') fail();
  if (typeof createdAtMicros !== 'bigint' || createdAtMicros < 0n || createdAtMicros > UINT64_MAX) fail();
  const body = sizeCreate(create);
  let total = 1 + v32Size(body) + body;
  const small = createdAtMicros <= BigInt(Number.MAX_SAFE_INTEGER);
  const at = small ? Number(createdAtMicros) : 0;
  if (createdAtMicros !== 0n) total += 2 + (small ? vNumSize(at) : vBigSize(createdAtMicros));

  buf = Buffer.allocUnsafe(total);
  o = 0;
  k = 0;
  buf[o++] = LD1;
  w32(body);
  writeCreate(create);
  if (createdAtMicros !== 0n) {
    buf[o++] = TAG_CREATED_AT_0;
    buf[o++] = TAG_CREATED_AT_1;
    if (small) wNum(at);
    else wBig(createdAtMicros);
  }
  if (o !== total || k !== n) fail(); // self-check: the two passes disagree (a bug) → let protobuf-ts encode
  const out = buf;
  buf = EMPTY;
  if (lens.length > 4096) lens = [];
  return out;
}

function encodeWithProtobufTs(create: Create, createdAtMicros: bigint): Buffer {
  const bytes = Metadata_InputContract.toBinary({
    contract: { oneofKind: 'v1', v1: create },
    createdAt: createdAtMicros,
    eventBlob: new Uint8Array(0),
  });
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Protobuf bytes of `Metadata.InputContract { v1: create, created_at: createdAtMicros }` (no event_blob), identical to
 * `Metadata_InputContract.toBinary`. `fast` false forces the protobuf-ts encoding (for tests).
 */
export function encodeInputContractV1(create: Create, createdAtMicros: bigint, fast = true): Buffer {
  if (fast) {
    try {
      return encodeFast(create, createdAtMicros);
    } catch {
      // FALLBACK, or anything unexpected on the way: protobuf-ts decides (and throws for invalid input as before)
      buf = EMPTY;
    }
  }
  return encodeWithProtobufTs(create, createdAtMicros);
}

/** Whether the fast path accepts this input (for tests; the result is then byte-identical to protobuf-ts). */
export function inputContractV1FastPathApplies(create: Create, createdAtMicros: bigint): boolean {
  try {
    encodeFast(create, createdAtMicros);
    return true;
  } catch {
    buf = EMPTY;
    return false;
  }
}

/**
 * `createdEventBlob` of a contract created here: base64 of a `Metadata.InputContract` protobuf (the v1 Create node and
 * `createdAt` in µs), i.e. exactly what a prepared transaction lists for an input contract.
 */
export function createdEventBlobOf(create: Create, createdAtMicros: bigint): string {
  return encodeInputContractV1(create, createdAtMicros).toString('base64');
}
