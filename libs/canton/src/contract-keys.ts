/**
 * Contract-key fields of the interactive-submission protos that `@canton-network/core-ledger-proto` 1.7.0 lacks
 * (Canton 3.5.7 `interactive_submission_data.proto` / `interactive_submission_common_data.proto`):
 *
 * - `Create.key = 8`, `Fetch.key = 9`, `Fetch.by_key = 10`, `Exercise.key = 15`, `Exercise.by_key = 16`
 *   (`key` is an optional `GlobalKeyWithMaintainers`, `by_key` a bool);
 * - `Node.query_by_key = 5` (`QueryByKey`: lf_version 1, package_name 2, template_id 3, exhaustive 4, key 5, repeated result 6);
 * - `GlobalKeyWithMaintainers`: key 1 (`GlobalKey`), repeated maintainers 2;
 * - `GlobalKey`: template_id 1, package_name 2, key 3 (Value), hash 4 (bytes).
 *
 * After `PreparedTransaction.fromBinary`, protobuf-ts keeps these fields as "unknown fields" on the decoded
 * objects; the readers below decode them from there. Callers building objects in code may instead set plain
 * properties (`create.key`, `exercise.byKey`, a node `{ oneofKind: 'queryByKey', queryByKey }`), or use the
 * `set…` writers, which store them as unknown fields so that `toBinary` emits them.
 */
import { BinaryReader, BinaryWriter, UnknownFieldHandler, WireType } from '@protobuf-ts/runtime';
import { Create, Exercise, Fetch, Identifier, Value } from '@canton-network/core-ledger-proto';
import { CantonError } from './errors';

export interface GlobalKey {
  templateId?: Identifier;
  packageName: string;
  key?: Value;
  hash: Uint8Array;
}

export interface GlobalKeyWithMaintainers {
  key?: GlobalKey;
  maintainers: string[];
}

export interface QueryByKey {
  lfVersion: string;
  packageName: string;
  templateId?: Identifier;
  exhaustive: boolean;
  key?: GlobalKeyWithMaintainers;
  /** Contract ids (hex) found by the query. */
  result: string[];
}

export const CREATE_KEY_FIELD = 8;
export const FETCH_KEY_FIELD = 9;
export const FETCH_BY_KEY_FIELD = 10;
export const EXERCISE_KEY_FIELD = 15;
export const EXERCISE_BY_KEY_FIELD = 16;
export const NODE_QUERY_BY_KEY_FIELD = 5;

type UnknownField = { no: number; wireType: WireType; data: Uint8Array };

function unknownFields(message: object): UnknownField[] {
  const list = (message as Record<symbol, UnknownField[] | undefined>)[UnknownFieldHandler.symbol];
  return Array.isArray(list) ? list : [];
}

function lastUnknown(message: object, no: number): UnknownField | undefined {
  const all = unknownFields(message).filter((f) => f.no === no);
  return all[all.length - 1];
}

/** Payload of a length-delimited unknown field (protobuf-ts stores the length prefix with the data). */
function lengthDelimitedPayload(f: UnknownField): Uint8Array {
  if (f.wireType !== WireType.LengthDelimited) throw new CantonError(`Unexpected wire type for field ${f.no}`);
  return new BinaryReader(f.data).bytes();
}

/** Decodes an unknown length-delimited field, turning any decoding failure into a CantonError. */
function decodeUnknown<T>(f: UnknownField, what: string, decode: (b: Uint8Array) => T): T {
  try {
    return decode(lengthDelimitedPayload(f));
  } catch (e) {
    if (e instanceof CantonError) throw e;
    throw new CantonError(`Cannot decode ${what} (field ${f.no})`);
  }
}

function setUnknown(message: object, no: number, wireType: WireType, data: Uint8Array | undefined): void {
  const m = message as Record<symbol, UnknownField[] | undefined>;
  const rest = unknownFields(message).filter((f) => f.no !== no);
  if (data) rest.push({ no, wireType, data });
  m[UnknownFieldHandler.symbol] = rest;
}

// ---------------------------------------------------------------------------------------------- decoding

function skip(reader: BinaryReader, wireType: WireType): void {
  reader.skip(wireType);
}

export function decodeGlobalKey(bytes: Uint8Array): GlobalKey {
  const r = new BinaryReader(bytes);
  const out: GlobalKey = { packageName: '', hash: new Uint8Array(0) };
  while (r.pos < r.len) {
    const [no, wt] = r.tag();
    switch (no) {
      case 1:
        out.templateId = Identifier.fromBinary(r.bytes());
        break;
      case 2:
        out.packageName = r.string();
        break;
      case 3:
        out.key = Value.fromBinary(r.bytes());
        break;
      case 4:
        out.hash = r.bytes();
        break;
      default:
        skip(r, wt);
    }
  }
  return out;
}

export function decodeGlobalKeyWithMaintainers(bytes: Uint8Array): GlobalKeyWithMaintainers {
  const r = new BinaryReader(bytes);
  const out: GlobalKeyWithMaintainers = { maintainers: [] };
  while (r.pos < r.len) {
    const [no, wt] = r.tag();
    if (no === 1) out.key = decodeGlobalKey(r.bytes());
    else if (no === 2) out.maintainers.push(r.string());
    else skip(r, wt);
  }
  return out;
}

export function decodeQueryByKey(bytes: Uint8Array): QueryByKey {
  const r = new BinaryReader(bytes);
  const out: QueryByKey = { lfVersion: '', packageName: '', exhaustive: false, result: [] };
  while (r.pos < r.len) {
    const [no, wt] = r.tag();
    switch (no) {
      case 1:
        out.lfVersion = r.string();
        break;
      case 2:
        out.packageName = r.string();
        break;
      case 3:
        out.templateId = Identifier.fromBinary(r.bytes());
        break;
      case 4:
        out.exhaustive = r.bool();
        break;
      case 5:
        out.key = decodeGlobalKeyWithMaintainers(r.bytes());
        break;
      case 6:
        out.result.push(r.string());
        break;
      default:
        skip(r, wt);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------- encoding

export function encodeGlobalKey(k: GlobalKey): Uint8Array {
  const w = new BinaryWriter();
  if (k.templateId) w.tag(1, WireType.LengthDelimited).bytes(Identifier.toBinary(k.templateId));
  if (k.packageName) w.tag(2, WireType.LengthDelimited).string(k.packageName);
  if (k.key) w.tag(3, WireType.LengthDelimited).bytes(Value.toBinary(k.key));
  if (k.hash && k.hash.length) w.tag(4, WireType.LengthDelimited).bytes(k.hash);
  return w.finish();
}

export function encodeGlobalKeyWithMaintainers(k: GlobalKeyWithMaintainers): Uint8Array {
  const w = new BinaryWriter();
  if (k.key) w.tag(1, WireType.LengthDelimited).bytes(encodeGlobalKey(k.key));
  for (const m of k.maintainers ?? []) w.tag(2, WireType.LengthDelimited).string(m);
  return w.finish();
}

export function encodeQueryByKey(q: QueryByKey): Uint8Array {
  const w = new BinaryWriter();
  if (q.lfVersion) w.tag(1, WireType.LengthDelimited).string(q.lfVersion);
  if (q.packageName) w.tag(2, WireType.LengthDelimited).string(q.packageName);
  if (q.templateId) w.tag(3, WireType.LengthDelimited).bytes(Identifier.toBinary(q.templateId));
  if (q.exhaustive) w.tag(4, WireType.Varint).bool(true);
  if (q.key) w.tag(5, WireType.LengthDelimited).bytes(encodeGlobalKeyWithMaintainers(q.key));
  for (const cid of q.result ?? []) w.tag(6, WireType.LengthDelimited).string(cid);
  return w.finish();
}

const lengthDelimited = (payload: Uint8Array): Uint8Array => new BinaryWriter().bytes(payload).finish();
const varintBool = (b: boolean): Uint8Array => new BinaryWriter().bool(b).finish();

// ---------------------------------------------------------------------------------------------- accessors

type WithKey = { key?: GlobalKeyWithMaintainers; byKey?: boolean };

function readKey(message: object, field: number): GlobalKeyWithMaintainers | undefined {
  const explicit = (message as WithKey).key;
  if (explicit !== undefined) return explicit;
  const f = lastUnknown(message, field);
  return f ? decodeUnknown(f, 'contract key', decodeGlobalKeyWithMaintainers) : undefined;
}

function readBool(message: object, field: number): boolean {
  const explicit = (message as WithKey).byKey;
  if (explicit !== undefined) return explicit;
  const f = lastUnknown(message, field);
  if (!f) return false;
  if (f.wireType !== WireType.Varint) throw new CantonError(`Unexpected wire type for field ${field}`);
  try {
    return new BinaryReader(f.data).bool();
  } catch {
    throw new CantonError(`Cannot decode by_key (field ${field})`);
  }
}

export const getCreateKey = (c: Create): GlobalKeyWithMaintainers | undefined => readKey(c, CREATE_KEY_FIELD);
export const getFetchKey = (f: Fetch): GlobalKeyWithMaintainers | undefined => readKey(f, FETCH_KEY_FIELD);
export const getFetchByKey = (f: Fetch): boolean => readBool(f, FETCH_BY_KEY_FIELD);
export const getExerciseKey = (e: Exercise): GlobalKeyWithMaintainers | undefined => readKey(e, EXERCISE_KEY_FIELD);
export const getExerciseByKey = (e: Exercise): boolean => readBool(e, EXERCISE_BY_KEY_FIELD);

/** Reads the QueryByKey variant of a v1 `Node` (explicit `{oneofKind:'queryByKey'}` or unknown field 5). */
export function getQueryByKey(node: object): QueryByKey | undefined {
  const nt = (node as { nodeType?: { oneofKind?: string; queryByKey?: QueryByKey } }).nodeType;
  if (nt && nt.oneofKind === 'queryByKey' && nt.queryByKey) return nt.queryByKey;
  const f = lastUnknown(node, NODE_QUERY_BY_KEY_FIELD);
  return f ? decodeUnknown(f, 'QueryByKey node', decodeQueryByKey) : undefined;
}

/** Stores `Create.key` as an unknown field so that `toBinary` emits it (and the V3 hasher sees it). */
export function setCreateKey<T extends Create>(c: T, key: GlobalKeyWithMaintainers | undefined): T {
  setUnknown(
    c,
    CREATE_KEY_FIELD,
    WireType.LengthDelimited,
    key && lengthDelimited(encodeGlobalKeyWithMaintainers(key)),
  );
  return c;
}

export function setFetchKey<T extends Fetch>(f: T, key: GlobalKeyWithMaintainers | undefined, byKey = false): T {
  setUnknown(f, FETCH_KEY_FIELD, WireType.LengthDelimited, key && lengthDelimited(encodeGlobalKeyWithMaintainers(key)));
  setUnknown(f, FETCH_BY_KEY_FIELD, WireType.Varint, byKey ? varintBool(true) : undefined);
  return f;
}

export function setExerciseKey<T extends Exercise>(e: T, key: GlobalKeyWithMaintainers | undefined, byKey = false): T {
  setUnknown(
    e,
    EXERCISE_KEY_FIELD,
    WireType.LengthDelimited,
    key && lengthDelimited(encodeGlobalKeyWithMaintainers(key)),
  );
  setUnknown(e, EXERCISE_BY_KEY_FIELD, WireType.Varint, byKey ? varintBool(true) : undefined);
  return e;
}

/** Turns a v1 `Node` object into a QueryByKey node (unknown field 5, `nodeType` left as `{oneofKind: undefined}`). */
export function setQueryByKey<T extends object>(node: T, q: QueryByKey): T {
  (node as { nodeType?: unknown }).nodeType = { oneofKind: undefined };
  setUnknown(node, NODE_QUERY_BY_KEY_FIELD, WireType.LengthDelimited, lengthDelimited(encodeQueryByKey(q)));
  return node;
}
