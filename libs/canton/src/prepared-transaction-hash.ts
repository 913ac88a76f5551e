/**
 * Canton's prepared-transaction hash (external signing), hashing schemes V2 and V3.
 *
 * Implemented from the published specification (docs `external_signing_hashing_algorithm.rst`, with the V3
 * differences of Canton 3.5: no per-node / metadata encoding-version byte, contract keys, `by_key`,
 * QueryByKey nodes, optional `max_record_time` at the end of the metadata, final version byte 0x03).
 *
 * Encoding primitives: int32/int64 big-endian; string = int32 length ‖ UTF-8; bytes = int32 length ‖ bytes;
 * repeated = int32 count ‖ elements; optional = 0x00 | 0x01 ‖ value; contract ids are hex strings hashed as
 * length-prefixed bytes; node ids are replaced by sha256(encode(node)).
 *
 * Final hash = sha256(int32be(48) ‖ versionByte ‖ txHash ‖ metadataHash) where
 * txHash = sha256(int32be(48) ‖ encode(transaction)) and metadataHash = sha256(int32be(48) ‖ encode(metadata)).
 * The result is the raw 32-byte digest (no multihash prefix): what the party signs.
 */
import { hash as digestOnce } from 'node:crypto';
import type {
  Create,
  DamlTransaction,
  DamlTransaction_Node,
  Exercise,
  Fetch,
  Identifier,
  Metadata,
  PreparedTransaction,
  Rollback,
  Value,
} from '@canton-network/core-ledger-proto';
import { hexToBytes, int32be, toInt64 } from './bytes';
import {
  getCreateKey,
  getExerciseByKey,
  getExerciseKey,
  getFetchByKey,
  getFetchKey,
  getQueryByKey,
  GlobalKeyWithMaintainers,
  QueryByKey,
} from './contract-keys';
import { CantonError } from './errors';
import { HashPurpose } from './hash-purpose';

export type HashingSchemeVersionNumber = 2 | 3;

/** `HashingSchemeVersion.V3 = 3` (absent from core-ledger-proto 1.7.0's enum). */
export const HASHING_SCHEME_VERSION_V2 = 2 as const;
export const HASHING_SCHEME_VERSION_V3 = 3 as const;

const PURPOSE = int32be(HashPurpose.PreparedSubmission);
const NODE_ENCODING_VERSION_V2 = 0x01;
const METADATA_ENCODING_VERSION_V2 = 0x01;

const NodeTag = { Create: 0x00, Exercise: 0x01, Fetch: 0x02, Rollback: 0x03, QueryByKey: 0x04 } as const;
const ValueTag = {
  Unit: 0x00,
  Bool: 0x01,
  Int64: 0x02,
  Numeric: 0x03,
  Timestamp: 0x04,
  Date: 0x05,
  Party: 0x06,
  Text: 0x07,
  ContractId: 0x08,
  Optional: 0x09,
  List: 0x0a,
  TextMap: 0x0b,
  Record: 0x0c,
  Variant: 0x0d,
  Enum: 0x0e,
  GenMap: 0x0f,
} as const;

/** Maps `HASHING_SCHEME_VERSION_V2`/`V3` (or 2/3) to 2/3; throws for anything else (V4 is dev-only and unsupported here). */
export function hashingSchemeVersionFromName(v: string | number): HashingSchemeVersionNumber {
  if (v === 2 || v === 'HASHING_SCHEME_VERSION_V2' || v === 'V2') return 2;
  if (v === 3 || v === 'HASHING_SCHEME_VERSION_V3' || v === 'V3') return 3;
  throw new CantonError(`Unsupported hashing scheme version ${String(v)}`);
}

function checkVersion(version: number): HashingSchemeVersionNumber {
  if (version !== 2 && version !== 3) throw new CantonError(`Unsupported hashing scheme version ${version}`);
  return version;
}

/**
 * Append-only byte sink: writes into one growable Buffer (a hash encodes a few hundred bytes of small fields; a Buffer
 * per field and a concatenation at the end made allocation and GC most of the hash's cost). Encoders nest (a node's
 * children are hashed while it is encoded), so each has its own buffer.
 */
class Encoder {
  private buf: Buffer = Buffer.allocUnsafe(512);
  private len = 0;

  private room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n));
    this.buf.copy(bigger, 0, 0, this.len);
    this.buf = bigger;
  }
  raw(b: Uint8Array): this {
    this.room(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
    return this;
  }
  byte(n: number): this {
    this.room(1);
    this.buf[this.len++] = n;
    return this;
  }
  bool(b: boolean): this {
    return this.byte(b ? 1 : 0);
  }
  int32(n: number): this {
    this.room(4);
    this.buf.writeInt32BE(n | 0, this.len);
    this.len += 4;
    return this;
  }
  int64(v: bigint | number | string, what?: string): this {
    this.room(8);
    this.buf.writeBigInt64BE(toInt64(v, what), this.len);
    this.len += 8;
    return this;
  }
  bytes(b: Uint8Array): this {
    return this.int32(b.length).raw(b);
  }
  string(s: string | undefined): this {
    const text = s ?? '';
    const n = Buffer.byteLength(text, 'utf8');
    this.int32(n);
    this.room(n);
    this.len += this.buf.write(text, this.len, n, 'utf8');
    return this;
  }
  hex(s: string, what: string): this {
    return this.bytes(hexToBytes(s ?? '', what));
  }
  strings(xs: readonly string[] | undefined): this {
    const list = xs ?? [];
    this.int32(list.length);
    for (const s of list) this.string(s);
    return this;
  }
  /** The bytes written (a view of the encoder's buffer; the encoder is not used after). */
  finish(): Buffer {
    return this.buf.subarray(0, this.len);
  }
}

/** SHA-256 in one call (no Hash object per digest). */
const sha256 = (...parts: Uint8Array[]): Buffer =>
  digestOnce('sha256', parts.length === 1 ? parts[0] : Buffer.concat(parts), 'buffer') as unknown as Buffer;

// ------------------------------------------------------------------------------------------------ values

function addIdentifier(e: Encoder, id: Identifier | undefined): void {
  // An unset message field reads as its default (empty strings), as in the proto semantics of the reference.
  e.string(id?.packageId ?? '');
  e.strings((id?.moduleName ?? '').split('.'));
  e.strings((id?.entityName ?? '').split('.'));
}

function addOptionalIdentifier(e: Encoder, id: Identifier | undefined): void {
  if (id === undefined || id === null) e.byte(0);
  else {
    e.byte(1);
    addIdentifier(e, id);
  }
}

function addValue(e: Encoder, value: Value | undefined, depth: number): void {
  if (depth > 1000) throw new CantonError('Value nesting too deep');
  const sum = value?.sum;
  if (!sum || sum.oneofKind === undefined) throw new CantonError('Unsupported value type: the value is not set');
  switch (sum.oneofKind) {
    case 'unit':
      e.byte(ValueTag.Unit);
      return;
    case 'bool':
      e.byte(ValueTag.Bool).bool(sum.bool);
      return;
    case 'int64':
      e.byte(ValueTag.Int64).int64(sum.int64, 'int64 value');
      return;
    case 'numeric':
      e.byte(ValueTag.Numeric).string(sum.numeric);
      return;
    case 'timestamp':
      e.byte(ValueTag.Timestamp).int64(sum.timestamp, 'timestamp value');
      return;
    case 'date':
      e.byte(ValueTag.Date).int32(sum.date);
      return;
    case 'party':
      e.byte(ValueTag.Party).string(sum.party);
      return;
    case 'text':
      e.byte(ValueTag.Text).string(sum.text);
      return;
    case 'contractId':
      e.byte(ValueTag.ContractId).hex(sum.contractId, 'contract id');
      return;
    case 'optional': {
      e.byte(ValueTag.Optional);
      const inner = sum.optional?.value;
      if (inner === undefined || inner === null) e.byte(0);
      else {
        e.byte(1);
        addValue(e, inner, depth + 1);
      }
      return;
    }
    case 'list': {
      const elements = sum.list?.elements ?? [];
      e.byte(ValueTag.List).int32(elements.length);
      for (const el of elements) addValue(e, el, depth + 1);
      return;
    }
    case 'textMap': {
      const entries = sum.textMap?.entries ?? [];
      e.byte(ValueTag.TextMap).int32(entries.length);
      for (const en of entries) {
        e.string(en.key);
        addValue(e, en.value, depth + 1);
      }
      return;
    }
    case 'record': {
      e.byte(ValueTag.Record);
      addOptionalIdentifier(e, sum.record?.recordId);
      const fields = sum.record?.fields ?? [];
      e.int32(fields.length);
      for (const f of fields) {
        // The label is always encoded as a defined optional string (empty label included), as in the spec.
        e.byte(1).string(f.label);
        addValue(e, f.value, depth + 1);
      }
      return;
    }
    case 'variant':
      e.byte(ValueTag.Variant);
      addOptionalIdentifier(e, sum.variant?.variantId);
      e.string(sum.variant?.constructor);
      addValue(e, sum.variant?.value, depth + 1);
      return;
    case 'enum':
      e.byte(ValueTag.Enum);
      addOptionalIdentifier(e, sum.enum?.enumId);
      e.string(sum.enum?.constructor);
      return;
    case 'genMap': {
      const entries = sum.genMap?.entries ?? [];
      e.byte(ValueTag.GenMap).int32(entries.length);
      for (const en of entries) {
        addValue(e, en.key, depth + 1);
        addValue(e, en.value, depth + 1);
      }
      return;
    }
    default:
      throw new CantonError(`Unsupported value type ${(sum as { oneofKind: string }).oneofKind}`);
  }
}

/** Hash-scheme encoding of a Daml `Value` (type tag ‖ payload); identical in V2 and V3. */
export function encodeValue(value: Value): Buffer {
  const e = new Encoder();
  addValue(e, value, 0);
  return e.finish();
}

/** Hash-scheme encoding of an `Identifier`: package id ‖ split(module, '.') ‖ split(entity, '.'). */
export function encodeIdentifier(id: Identifier): Buffer {
  const e = new Encoder();
  addIdentifier(e, id);
  return e.finish();
}

// ------------------------------------------------------------------------------------------------- nodes

function addKeyWithMaintainers(e: Encoder, k: GlobalKeyWithMaintainers | undefined): void {
  e.string(k?.key?.packageName ?? '');
  addIdentifier(e, k?.key?.templateId);
  addValue(e, k?.key?.key, 0);
  e.raw(k?.key?.hash ?? new Uint8Array(0)); // fixed-size hash: no length prefix
  e.strings(k?.maintainers);
}

function addOptionalKey(e: Encoder, k: GlobalKeyWithMaintainers | undefined): void {
  if (k === undefined || k === null) e.byte(0);
  else {
    e.byte(1);
    addKeyWithMaintainers(e, k);
  }
}

interface NodeContext {
  version: HashingSchemeVersionNumber;
  nodes: Map<string, DamlTransaction_Node>;
  seeds: Map<string, Uint8Array>;
  memo: Map<string, Buffer>;
  inProgress: Set<string>;
}

function addCreate(e: Encoder, c: Create, seed: Uint8Array | undefined, version: HashingSchemeVersionNumber): void {
  if (version === 2) e.byte(NODE_ENCODING_VERSION_V2);
  e.string(c.lfVersion).byte(NodeTag.Create);
  if (seed === undefined) e.byte(0);
  else e.byte(1).raw(seed);
  e.hex(c.contractId, 'contract id');
  e.string(c.packageName);
  addIdentifier(e, c.templateId);
  addValue(e, c.argument, 0);
  e.strings(c.signatories).strings(c.stakeholders);
  const key = getCreateKey(c);
  if (version === 3) addOptionalKey(e, key);
  else if (key) throw keysNeedV3('Create', c.contractId);
}

function keysNeedV3(kind: string, cid: string): CantonError {
  return new CantonError(`${kind} node on ${cid} uses a contract key: contract keys require hashing scheme V3`);
}

function addChildren(e: Encoder, children: readonly string[] | undefined, ctx: NodeContext): void {
  const list = children ?? [];
  e.int32(list.length);
  for (const child of list) e.raw(hashNodeById(child, ctx));
}

function addExercise(e: Encoder, x: Exercise, nodeId: string, ctx: NodeContext): void {
  const seed = ctx.seeds.get(nodeId);
  if (seed === undefined) throw new CantonError(`Missing node seed for exercise node ${nodeId}`);
  if (ctx.version === 2) e.byte(NODE_ENCODING_VERSION_V2);
  e.string(x.lfVersion).byte(NodeTag.Exercise).raw(seed);
  e.hex(x.contractId, 'contract id');
  e.string(x.packageName);
  addIdentifier(e, x.templateId);
  e.strings(x.signatories).strings(x.stakeholders).strings(x.actingParties);
  addOptionalIdentifier(e, x.interfaceId);
  e.string(x.choiceId);
  addValue(e, x.chosenValue, 0);
  e.bool(x.consuming);
  if (x.exerciseResult === undefined || x.exerciseResult === null) e.byte(0);
  else {
    e.byte(1);
    addValue(e, x.exerciseResult, 0);
  }
  e.strings(x.choiceObservers);
  if (ctx.version === 3) {
    e.bool(getExerciseByKey(x));
    addOptionalKey(e, getExerciseKey(x));
  } else if (getExerciseByKey(x) || getExerciseKey(x)) throw keysNeedV3('Exercise', x.contractId);
  addChildren(e, x.children, ctx);
}

function addFetch(e: Encoder, f: Fetch, version: HashingSchemeVersionNumber): void {
  if (version === 2) e.byte(NODE_ENCODING_VERSION_V2);
  e.string(f.lfVersion).byte(NodeTag.Fetch);
  e.hex(f.contractId, 'contract id');
  e.string(f.packageName);
  addIdentifier(e, f.templateId);
  e.strings(f.signatories).strings(f.stakeholders);
  addOptionalIdentifier(e, f.interfaceId);
  e.strings(f.actingParties);
  if (version === 3) {
    e.bool(getFetchByKey(f));
    addOptionalKey(e, getFetchKey(f));
  } else if (getFetchByKey(f) || getFetchKey(f)) throw keysNeedV3('Fetch', f.contractId);
}

function addRollback(e: Encoder, r: Rollback, ctx: NodeContext): void {
  if (ctx.version === 2) e.byte(NODE_ENCODING_VERSION_V2);
  e.byte(NodeTag.Rollback);
  addChildren(e, r.children, ctx);
}

function addQueryByKey(e: Encoder, q: QueryByKey): void {
  e.string(q.lfVersion).byte(NodeTag.QueryByKey);
  e.string(q.packageName);
  addIdentifier(e, q.templateId);
  e.bool(q.exhaustive);
  addKeyWithMaintainers(e, q.key);
  const result = q.result ?? [];
  e.int32(result.length);
  for (const cid of result) e.hex(cid, 'contract id');
}

function encodeNodeInContext(node: DamlTransaction_Node, ctx: NodeContext): Buffer {
  const e = new Encoder();
  if (node.versionedNode?.oneofKind !== 'v1') throw new CantonError(`Unsupported node version for node ${node.nodeId}`);
  const v1 = node.versionedNode.v1;
  const nt = v1.nodeType;
  switch (nt?.oneofKind) {
    case 'create':
      addCreate(e, nt.create, ctx.seeds.get(node.nodeId), ctx.version);
      break;
    case 'exercise':
      addExercise(e, nt.exercise, node.nodeId, ctx);
      break;
    case 'fetch':
      addFetch(e, nt.fetch, ctx.version);
      break;
    case 'rollback':
      addRollback(e, nt.rollback, ctx);
      break;
    default: {
      const q = getQueryByKey(v1);
      if (!q) throw new CantonError(`Unsupported node type for node ${node.nodeId}`);
      if (ctx.version === 2)
        throw new CantonError(
          `QueryByKey node ${node.nodeId} requires hashing scheme V3 (contract keys are not supported in V2)`,
        );
      addQueryByKey(e, q);
    }
  }
  return e.finish();
}

function hashNodeById(nodeId: string, ctx: NodeContext): Buffer {
  const cached = ctx.memo.get(nodeId);
  if (cached) return cached;
  const node = ctx.nodes.get(nodeId);
  if (!node) throw new CantonError(`Missing node ${nodeId}`);
  if (ctx.inProgress.has(nodeId)) throw new CantonError(`Cycle in the transaction tree at node ${nodeId}`);
  ctx.inProgress.add(nodeId);
  const h = sha256(encodeNodeInContext(node, ctx));
  ctx.inProgress.delete(nodeId);
  ctx.memo.set(nodeId, h);
  return h;
}

function nodeContext(tx: DamlTransaction | undefined, version: HashingSchemeVersionNumber): NodeContext {
  const nodes = new Map<string, DamlTransaction_Node>();
  for (const n of tx?.nodes ?? []) nodes.set(n.nodeId, n); // a later duplicate wins, as a dict would
  const seeds = new Map<string, Uint8Array>();
  for (const s of tx?.nodeSeeds ?? []) {
    const id = String(s.nodeId);
    if (!seeds.has(id)) seeds.set(id, s.seed); // the first matching seed wins
  }
  return { version, nodes, seeds, memo: new Map(), inProgress: new Set() };
}

/** sha256 of the encoding of one node of `tx` (the value a parent or the root list contributes). */
export function hashNode(tx: DamlTransaction, nodeId: string, version: HashingSchemeVersionNumber = 2): Buffer {
  return hashNodeById(nodeId, nodeContext(tx, checkVersion(version)));
}

/** Encoding of a Create node with no seed (used for input contracts), without hashing it. */
export function encodeCreateNode(create: Create, version: HashingSchemeVersionNumber = 2, seed?: Uint8Array): Buffer {
  const e = new Encoder();
  addCreate(e, create, seed, checkVersion(version));
  return e.finish();
}

// ------------------------------------------------------------------------------------ transaction, metadata

/** txHash = sha256(int32be(48) ‖ string(version) ‖ int32(#roots) ‖ sha256(encode(root))…). */
export function hashTransaction(tx: DamlTransaction | undefined, version: HashingSchemeVersionNumber = 2): Buffer {
  const ctx = nodeContext(tx, checkVersion(version));
  const e = new Encoder().raw(PURPOSE).string(tx?.version ?? '');
  addChildren(e, tx?.roots, ctx);
  return sha256(e.finish());
}

/** metadataHash = sha256(int32be(48) ‖ encode(metadata)). */
export function hashMetadata(md: Metadata | undefined, version: HashingSchemeVersionNumber = 2): Buffer {
  const v = checkVersion(version);
  const e = new Encoder().raw(PURPOSE);
  if (v === 2) e.byte(METADATA_ENCODING_VERSION_V2);
  e.strings(md?.submitterInfo?.actAs);
  e.string(md?.submitterInfo?.commandId ?? '');
  e.string(md?.transactionUuid ?? '');
  e.int32(md?.mediatorGroup ?? 0);
  e.string(md?.synchronizerId ?? '');
  addOptionalInt64(e, md?.minLedgerEffectiveTime, 'min_ledger_effective_time');
  addOptionalInt64(e, md?.maxLedgerEffectiveTime, 'max_ledger_effective_time');
  e.int64(md?.preparationTime ?? 0n, 'preparation_time');
  const inputs = md?.inputContracts ?? [];
  e.int32(inputs.length);
  for (const ic of inputs) {
    if (ic.contract?.oneofKind !== 'v1') throw new CantonError('Unsupported input contract version');
    e.int64(ic.createdAt ?? 0n, 'input contract created_at');
    e.raw(sha256(encodeCreateNode(ic.contract.v1, v)));
  }
  if (v === 3) addOptionalInt64(e, md?.maxRecordTime, 'max_record_time');
  return sha256(e.finish());
}

function addOptionalInt64(e: Encoder, v: bigint | number | string | undefined | null, what: string): void {
  if (v === undefined || v === null) e.byte(0);
  else e.byte(1).int64(v, what);
}

export interface PreparedTransactionHashDetails {
  /** The 32-byte hash to sign. */
  hash: Buffer;
  transactionHash: Buffer;
  metadataHash: Buffer;
  version: HashingSchemeVersionNumber;
}

/** Hash plus its two intermediate hashes. */
export function computePreparedTransactionHash(
  pt: PreparedTransaction,
  version: HashingSchemeVersionNumber = 2,
): PreparedTransactionHashDetails {
  const v = checkVersion(version);
  const transactionHash = hashTransaction(pt.transaction, v);
  const metadataHash = hashMetadata(pt.metadata, v);
  const hash = sha256(PURPOSE, Buffer.from([v]), transactionHash, metadataHash);
  return { hash, transactionHash, metadataHash, version: v };
}

/**
 * The raw 32-byte prepared-transaction hash under hashing scheme V2 or V3 (what `preparedTransactionHash`
 * carries and what the external party signs). Throws `CantonError` on structurally invalid transactions
 * (missing node/seed, cycles, bad hex contract id, unset value, keys under V2, …).
 */
export function hashPreparedTransaction(pt: PreparedTransaction, version: HashingSchemeVersionNumber = 2): Buffer {
  return computePreparedTransactionHash(pt, version).hash;
}
