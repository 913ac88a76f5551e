/**
 * Canton's suffix of V1 contract ids (`community/base/.../protocol/CantonContractIdVersion.scala`, `Unicum.scala`,
 * `community/common/.../protocol/UnicumGenerator.scala`, `ContractIdSuffixer.scala`). At commit the participant turns a
 * local id `00 ‖ discriminator` into `00 ‖ discriminator ‖ version prefix ‖ unicum`, the unicum being the multihash
 * `12 20 ‖ sha256(…)` of purpose `Unicum` (29) over:
 *   contract salt (32 bytes) ‖ creation time (int64 epoch seconds ‖ int32 nanos) ‖ signatories (length-prefixed
 *   sequence of sorted parties) ‖ non-signatory stakeholders (the same) ‖ key hash option (always none here) ‖
 *   maintainers option (always none here) ‖ contract hash (32 bytes).
 * Protocol versions 34 and later use `AuthenticatedContractIdVersionV12` (prefix `ca 12`): 138 hex characters in all.
 *
 * Where Canton's inputs are not ours:
 * - the contract salt is Canton's HMAC of a per-transaction random seed, but over our own message
 *   (`int32 create index ‖ string synchronizer id`; Canton's also has the view position, transaction UUID and mediator);
 * - the contract hash is Daml-LF's legacy contract-instance hash (`daml-lf/transaction/.../crypto/Hash.scala`
 *   `assertHashContractInstance`, `LegacyBuilder`), which reads the untyped value; V12's typed normal form
 *   (`SValueHash`) needs the argument's types, which a committed transaction does not carry.
 */
import { createHash, createHmac } from 'node:crypto';
import type { Identifier, Value } from '@canton-network/core-ledger-proto';
import { int32be } from './bytes';
import { CantonError } from './errors';
import { HashPurpose } from './hash-purpose';
import { SHA256_MULTIHASH_PREFIX } from './multihash';

/** The version prefixes of Canton's V1 suffixes (`AuthenticatedContractIdVersionV10` … `V12`). */
export const CONTRACT_ID_VERSION_PREFIXES = { V10: 'ca10', V11: 'ca11', V12: 'ca12' } as const;
export type ContractIdV1Version = keyof typeof CONTRACT_ID_VERSION_PREFIXES;
/** The version protocol versions 34 and later use (`CantonContractIdVersion.maximumSupportedVersion`). */
export const CURRENT_CONTRACT_ID_VERSION: ContractIdV1Version = 'V12';

const LOCAL_ID_RE = /^00[0-9a-f]{64}$/;
const SUFFIXED_ID_RE = /^00[0-9a-f]{64}ca1[012]1220[0-9a-f]{64}$/;

/** A V1 contract id without suffix (`00` ‖ discriminator): what interpretation produces before commit. */
export const isLocalContractId = (s: string): boolean => LOCAL_ID_RE.test(s);

/** A V1 contract id with one of Canton's suffixes (`00` ‖ discriminator ‖ `ca1x` ‖ `1220` ‖ 32-byte hash). */
export const isCantonSuffixedContractId = (s: string): boolean => SUFFIXED_ID_RE.test(s);

/** The Canton contract-id version of a suffixed id (`extractCantonContractIdVersion`), or undefined. */
export function contractIdVersionOf(contractId: string): ContractIdV1Version | undefined {
  if (!isCantonSuffixedContractId(contractId)) return undefined;
  const prefix = contractId.slice(66, 70);
  return (Object.keys(CONTRACT_ID_VERSION_PREFIXES) as ContractIdV1Version[]).find(
    (v) => CONTRACT_ID_VERSION_PREFIXES[v] === prefix,
  );
}

/** `localId ‖ version prefix ‖ unicum` (`CantonContractIdV1Version.fromDiscriminator`); `unicum` is the 34-byte multihash. */
export function suffixedContractId(
  localId: string,
  unicum: Uint8Array,
  version: ContractIdV1Version = CURRENT_CONTRACT_ID_VERSION,
): string {
  if (!isLocalContractId(localId)) throw new CantonError(`Not a local V1 contract id: ${JSON.stringify(localId)}`);
  const u = Buffer.from(unicum);
  if (u.length !== 34 || !u.subarray(0, 2).equals(SHA256_MULTIHASH_PREFIX))
    throw new CantonError('A unicum is a 34-byte SHA-256 multihash');
  return localId + CONTRACT_ID_VERSION_PREFIXES[version] + u.toString('hex');
}

const encodeString = (s: string) => {
  const b = Buffer.from(s, 'utf8');
  return Buffer.concat([int32be(b.length), b]);
};
const int64be = (n: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(n);
  return b;
};
const encodeParties = (parties: readonly string[]) =>
  Buffer.concat([int32be(parties.length), ...parties.map(encodeString)]);
/** `addByteString`: a length-prefixed byte string. */
const byteString = (b: Buffer) => Buffer.concat([int32be(b.length), b]);

/** Our contract salt: HMAC-SHA256(transaction salt seed, int32 create index ‖ string synchronizer id). */
export function contractSalt(transactionSaltSeed: Uint8Array, createIndex: number, synchronizerId: string): Buffer {
  return createHmac('sha256', transactionSaltSeed)
    .update(int32be(createIndex))
    .update(encodeString(synchronizerId))
    .digest();
}

export interface UnicumInput {
  /** 32 bytes. */
  salt: Uint8Array;
  /** The contract's creation (ledger effective) time, µs since the epoch. */
  createdAt: bigint;
  signatories: readonly string[];
  stakeholders: readonly string[];
  /** 32 bytes. */
  contractHash: Uint8Array;
}

/** The unicum as a 34-byte multihash (`UnicumGenerator.computeUnicumHash`, no contract key). */
export function computeUnicum(u: UnicumInput): Buffer {
  if (u.salt.length !== 32) throw new CantonError(`Invalid contract salt size (${u.salt.length})`);
  if (u.contractHash.length !== 32) throw new CantonError(`Invalid contract hash size (${u.contractHash.length})`);
  const signatories = [...new Set(u.signatories)].sort();
  const nonSignatories = [...new Set(u.stakeholders)].filter((p) => !signatories.includes(p)).sort();
  const seconds = u.createdAt >= 0n ? u.createdAt / 1_000_000n : -((-u.createdAt + 999_999n) / 1_000_000n);
  const nanos = Number(u.createdAt - seconds * 1_000_000n) * 1000;
  const digest = createHash('sha256')
    .update(int32be(HashPurpose.Unicum))
    .update(u.salt)
    .update(int64be(seconds))
    .update(int32be(nanos))
    .update(byteString(encodeParties(signatories)))
    .update(byteString(encodeParties(nonSignatories)))
    .update(Buffer.from([0])) // no key hash
    .update(byteString(Buffer.from([0]))) // no maintainers
    .update(u.contractHash)
    .digest();
  return Buffer.concat([SHA256_MULTIHASH_PREFIX, digest]);
}

// ------------------------------------------------------------------ Daml-LF legacy contract-instance hash

/** Daml-LF hash purposes and value-encoding versions (`Hash.scala` `Purpose`, `Version`). */
const LF_PURPOSE_THIN_CONTRACT_INSTANCE = 5;
const LF_VERSION_LEGACY = 0;

/** Java's `BigInteger.toByteArray`: minimal two's complement, big-endian. */
function twosComplement(n: bigint): Buffer {
  let len = 1;
  while (n < -(1n << BigInt(8 * len - 1)) || n >= 1n << BigInt(8 * len - 1)) len++;
  const v = n < 0n ? (1n << BigInt(8 * len)) + n : n;
  return Buffer.from(v.toString(16).padStart(len * 2, '0'), 'hex');
}

/** A numeric's unscaled value (its decimal digits without the point, as the text states them). */
function unscaled(numeric: string): bigint {
  const m = /^(-?)(\d+)(?:\.(\d*))?$/.exec(numeric);
  if (!m) throw new CantonError(`Invalid numeric ${JSON.stringify(numeric)}`);
  return BigInt(`${m[1]}${m[2]}${m[3] ?? ''}`);
}

class LegacyValueHasher {
  private readonly parts: Buffer[] = [];
  bytes(b: Buffer): this {
    this.parts.push(b);
    return this;
  }
  sized(b: Buffer): this {
    return this.bytes(int32be(b.length)).bytes(b);
  }
  string(s: string): this {
    return this.sized(Buffer.from(s, 'utf8'));
  }
  dotted(name: string): this {
    const segments = name.split('.');
    this.bytes(int32be(segments.length));
    for (const s of segments) this.string(s);
    return this;
  }
  value(v: Value | undefined, depth = 0): this {
    if (depth > 1000) throw new CantonError('Value nesting too deep');
    const sum = v?.sum;
    switch (sum?.oneofKind) {
      case 'unit':
        return this.bytes(Buffer.from([0]));
      case 'bool':
        return this.bytes(Buffer.from([sum.bool ? 1 : 0]));
      case 'int64':
        return this.bytes(int64be(BigInt(sum.int64)));
      case 'numeric':
        return this.sized(twosComplement(unscaled(sum.numeric)));
      case 'timestamp':
        return this.bytes(int64be(BigInt(sum.timestamp)));
      case 'date':
        return this.bytes(int32be(sum.date));
      case 'party':
        return this.string(sum.party);
      case 'text':
        return this.string(sum.text);
      case 'contractId':
        return this.sized(Buffer.from(sum.contractId, 'hex'));
      case 'optional': {
        const inner = sum.optional.value;
        return inner ? this.bytes(int32be(1)).value(inner, depth + 1) : this.bytes(int32be(0));
      }
      case 'list': {
        const xs = sum.list.elements;
        this.bytes(int32be(xs.length));
        for (const x of xs) this.value(x, depth + 1);
        return this;
      }
      case 'textMap': {
        const es = sum.textMap.entries;
        this.bytes(int32be(es.length));
        for (const e of es) this.string(e.key).value(e.value, depth + 1);
        return this;
      }
      case 'record': {
        const fs = sum.record.fields;
        this.bytes(int32be(fs.length));
        for (const f of fs) this.value(f.value, depth + 1);
        return this;
      }
      case 'variant':
        return this.string(sum.variant.constructor).value(sum.variant.value, depth + 1);
      case 'enum':
        return this.string(sum.enum.constructor);
      case 'genMap': {
        const es = sum.genMap.entries;
        this.bytes(int32be(es.length));
        for (const e of es) this.value(e.key, depth + 1).value(e.value, depth + 1);
        return this;
      }
      default:
        throw new CantonError('Cannot hash a value that is not set');
    }
  }
  digest(): Buffer {
    return createHash('sha256').update(Buffer.concat(this.parts)).digest();
  }
}

/** Daml-LF's legacy hash of a contract instance (32 bytes): package name, template id, argument. */
export function legacyContractInstanceHash(packageName: string, templateId: Identifier, argument: Value): Buffer {
  return new LegacyValueHasher()
    .bytes(Buffer.from([LF_VERSION_LEGACY, LF_PURPOSE_THIN_CONTRACT_INSTANCE]))
    .string(packageName)
    .string(templateId.packageId)
    .dotted(templateId.moduleName)
    .dotted(templateId.entityName)
    .value(argument)
    .digest();
}
