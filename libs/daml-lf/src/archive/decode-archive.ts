/**
 * `.dalf` bytes (an `Archive`) and DARs → decoded packages: the one decoder of the code base. The envelope (hash
 * function, SHA-256 check, LF version, metadata rules) follows Canton's `Reader` and `DecodeV2` (daml-lf/archive); the
 * zip and manifest are `@ledgerline/canton`'s readDar; the package itself is `decodePackage`.
 */
import { createHash } from 'node:crypto';
import {
  ACCEPTED_LF_VERSIONS,
  ArchiveParseError,
  isPackageId,
  isPackageName,
  isPackageVersion,
  packageIdProblem,
  readDar,
} from '@ledgerline/canton';
import type { Package } from '../language/ast';
import { decodePackage, LF2_MINORS } from './decode-package';
import { LfDecodeError, WIRE_LEN, WIRE_VARINT, WireReader } from './wire';

/** What a store and an upload need to know of an archive, besides its decoded package. */
export interface ArchiveInfo {
  /** Lowercase hex SHA-256 of the payload: the package id. */
  readonly packageId: string;
  /** The serialized ArchivePayload (a view into the archive's bytes). */
  readonly payload: Uint8Array;
  /** `<major>.<minor>`, e.g. `2.1`, `2.dev`, `1.15`. */
  readonly lfVersion: string;
  /** Whether Canton 3.5 accepts this LF version on upload. */
  readonly accepted: boolean;
  /** Name and version from the package metadata; null where the package was not decoded (a refused LF version). */
  readonly name: string | null;
  readonly version: string | null;
  /** LF ≥ 2.2: the package ids the package declares it imports; null where the package does not declare them. */
  readonly imports: readonly string[] | null;
  /** The package's templates and interfaces as `Module:Entity` (sorted); null where the package was not decoded. */
  readonly templates: readonly string[] | null;
}

export interface DecodedArchive {
  readonly archive: ArchiveInfo;
  readonly package: Package;
}

/** An archive as an upload reads it: the package is null only for an LF version Canton refuses that did not decode. */
export interface InspectedArchive {
  readonly archive: ArchiveInfo;
  readonly package: Package | null;
}

const LF1_MINORS = ['6', '7', '8', '11', '12', '13', '14', '15', '17', 'dev'];

interface Envelope {
  packageId: string;
  payload: Uint8Array;
  major: 1 | 2;
  minor: string;
  patch: number;
  /** The `daml_lf_1` / `daml_lf_2` package bytes. */
  packageBytes: Uint8Array;
}

/** Reads the fields of one message; an unknown field number is refused (`what: unknown field N`). */
function fields(bytes: Uint8Array, what: string, known: readonly number[], on: (field: number, r: WireReader) => void) {
  const r = new WireReader(bytes);
  while (r.pos < bytes.length) {
    const tag = r.uint32();
    const field = tag >>> 3;
    if (!known.includes(field)) throw new ArchiveParseError(`${what}: unknown field ${field}`);
    const before = r.pos;
    on(field, r);
    if (r.pos === before) r.skip(tag & 7);
  }
}

/**
 * The package id a dalf's `Archive` declares (its `hash` field), without checking or decoding the payload: enough to
 * ask whether the package is stored already. An upload still decodes and checks it.
 */
export function declaredPackageId(dalf: Uint8Array): string {
  let hash = '';
  fields(dalf, 'daml_lf.Archive', [1, 3, 4], (f, r) => {
    if (f === 4) hash = r.string();
  });
  return hash;
}

function envelope(dalf: Uint8Array): Envelope {
  let hashFunction = 0;
  let payload: Uint8Array = new Uint8Array();
  let hash = '';
  try {
    const r0 = new WireReader(dalf);
    while (r0.pos < dalf.length) {
      const tag = r0.uint32();
      const f = tag >>> 3;
      const w = tag & 7;
      if (f === 1 && w === WIRE_VARINT) hashFunction = r0.int32();
      else if (f === 3 && w === WIRE_LEN) payload = r0.bytes();
      else if (f === 4 && w === WIRE_LEN) hash = r0.string();
      else throw new ArchiveParseError(`daml_lf.Archive: unknown field ${f} (wire type ${w})`);
    }
  } catch (e) {
    if (e instanceof LfDecodeError) throw new ArchiveParseError(`daml_lf.Archive: ${e.message}`);
    throw e;
  }
  if (hashFunction !== 0) throw new ArchiveParseError('Unrecognized hash function');
  const hashProblem = packageIdProblem(hash);
  if (hashProblem) throw new ArchiveParseError(`Invalid hash: ${hashProblem}`);
  const computed = createHash('sha256').update(payload).digest('hex');
  if (computed !== hash) throw new ArchiveParseError(`Mismatching hashes! Expected ${computed} but got ${hash}`);

  let minor = '';
  let patch = 0;
  let lf1: Uint8Array | undefined;
  let lf2: Uint8Array | undefined;
  try {
    const r = new WireReader(payload);
    while (r.pos < payload.length) {
      const tag = r.uint32();
      const f = tag >>> 3;
      const w = tag & 7;
      if (f === 2 && w === WIRE_LEN) {
        lf1 = r.bytes();
        lf2 = undefined;
      } else if (f === 4 && w === WIRE_LEN) {
        lf2 = r.bytes();
        lf1 = undefined;
      } else if (f === 3 && w === WIRE_LEN) minor = r.string();
      else if (f === 5 && w === WIRE_VARINT) patch = r.int32();
      else throw new ArchiveParseError(`daml_lf.ArchivePayload: unknown field ${f} (wire type ${w})`);
    }
  } catch (e) {
    if (e instanceof LfDecodeError) throw new ArchiveParseError(`daml_lf.ArchivePayload: ${e.message}`);
    throw e;
  }
  if (lf1) {
    if (patch !== 0) throw new ArchiveParseError('Patch version is not supported for LF1');
    if (!LF1_MINORS.includes(minor)) throw new ArchiveParseError(`Unknown LF minor version 1.${minor}`);
    return { packageId: hash, payload, major: 1, minor, patch, packageBytes: lf1 };
  }
  if (!lf2) throw new ArchiveParseError('Unrecognized or Unsupported LF version');
  if (!(LF2_MINORS as readonly string[]).includes(minor))
    throw new ArchiveParseError(`Unknown LF minor version 2.${minor}`);
  return { packageId: hash, payload, major: 2, minor, patch, packageBytes: lf2 };
}

/** The package id of a `.dalf` after the envelope's checks (hash function, SHA-256 of the payload, LF version). */
export function checkedPackageId(dalf: Uint8Array): string {
  return envelope(dalf).packageId;
}

/** The `Package` fields of `daml_lf2.proto`: another top-level field makes the archive unreadable (as protobuf's strict parse). */
const LF2_PACKAGE_FIELDS = [1, 2, 3, 4, 5, 6, 7, 8, 9];

function checkPackageFields(bytes: Uint8Array): void {
  try {
    fields(bytes, 'daml_lf2.Package', LF2_PACKAGE_FIELDS, () => {});
  } catch (e) {
    if (e instanceof LfDecodeError) throw new ArchiveParseError(`daml_lf2.Package: ${e.message}`);
    throw e;
  }
}

/** `Module:Entity` of every template and interface of a package, sorted. */
export function templateNames(pkg: Package): string[] {
  const out: string[] = [];
  for (const m of pkg.modules.values()) {
    for (const t of m.templates.keys()) out.push(`${m.name}:${t}`);
    for (const i of m.interfaces.keys()) out.push(`${m.name}:${i}`);
  }
  return out.sort();
}

function infoOf(env: Envelope, pkg: Package | null, accepted: boolean): ArchiveInfo {
  return {
    packageId: env.packageId,
    payload: env.payload,
    lfVersion: `${env.major}.${env.minor}`,
    accepted,
    name: pkg?.metadata.name ?? null,
    version: pkg?.metadata.version ?? null,
    imports:
      pkg && pkg.noImportedPackagesReason === undefined && pkg.languageVersion.minor !== '1' ? pkg.imports : null,
    templates: pkg ? templateNames(pkg) : null,
  };
}

function checkMetadata(pkg: Package): void {
  const { name, version } = pkg.metadata;
  if (!isPackageName(name))
    throw new ArchiveParseError(`Failed to parse package metadata of ${pkg.id}: Invalid package name: ${name}`);
  if (!isPackageVersion(version))
    throw new ArchiveParseError(`Failed to parse package metadata of ${pkg.id}: Invalid package version: ${version}`);
  for (const id of pkg.noImportedPackagesReason === undefined && pkg.languageVersion.minor !== '1' ? pkg.imports : [])
    if (!isPackageId(id)) throw new ArchiveParseError(`Invalid imported package id: ${id}`);
}

/**
 * Reads a `.dalf` as an upload does: the envelope and its checks (ArchiveParseError: Canton's DAR_PARSE_ERROR
 * reasons), then the whole package. An LF version Canton refuses on upload is reported through `accepted`, not thrown
 * (Canton checks versions after every archive of a DAR has been read): LF 1 is not decoded, a refused LF 2 version
 * that does not decode has no package.
 */
export function inspectArchive(dalf: Uint8Array): InspectedArchive {
  const env = envelope(dalf);
  const lfVersion = `${env.major}.${env.minor}`;
  const accepted = (ACCEPTED_LF_VERSIONS as readonly string[]).includes(lfVersion);
  if (env.major === 1) return { archive: infoOf(env, null, false), package: null };
  if (!accepted) {
    let pkg: Package | null = null;
    try {
      pkg = decodePackage(env.packageBytes, env.packageId, env.minor);
    } catch (e) {
      if (!(e instanceof ArchiveParseError)) throw e;
    }
    return { archive: infoOf(env, pkg, false), package: pkg };
  }
  if (env.patch !== 0) throw new ArchiveParseError(`Unknown patch version ${env.patch} for LF ${lfVersion}`);
  checkPackageFields(env.packageBytes);
  const pkg = decodePackage(env.packageBytes, env.packageId, env.minor);
  checkMetadata(pkg);
  return { archive: infoOf(env, pkg, true), package: pkg };
}

/** The LF 2 `Package` bytes and minor version of an `ArchivePayload`. */
export function lf2PackageBytes(payload: Uint8Array): { minor: string; bytes: Uint8Array } {
  const r = new WireReader(payload);
  let minor = '';
  let lf2: Uint8Array | undefined;
  let lf1 = false;
  while (r.pos < payload.length) {
    const tag = r.uint32();
    const f = tag >>> 3;
    if (f === 3 && (tag & 7) === WIRE_LEN) minor = r.string();
    else if (f === 4 && (tag & 7) === WIRE_LEN) lf2 = r.bytes();
    else if (f === 2) {
      lf1 = true;
      r.skip(tag & 7);
    } else r.skip(tag & 7);
  }
  if (lf1) throw new LfDecodeError(`Daml-LF 1.${minor} is not supported: only LF 2 packages are decoded`);
  if (!lf2) throw new LfDecodeError('Unrecognized or Unsupported LF version');
  return { minor, bytes: lf2 };
}

/** Decodes one `.dalf`: envelope checks (ArchiveParseError), then the whole package (LfDecodeError, an ArchiveParseError). */
export function decodeArchive(dalf: Uint8Array): DecodedArchive {
  const inspected = inspectArchive(dalf);
  if (!inspected.package) {
    const { lfVersion } = inspected.archive;
    if (lfVersion.startsWith('1.'))
      throw new LfDecodeError(`Daml-LF ${lfVersion} is not supported: only LF 2 packages are decoded`);
    // A refused LF 2 version that does not decode: decode again for the reason.
    const { minor, bytes } = lf2PackageBytes(inspected.archive.payload);
    decodePackage(bytes, inspected.archive.packageId, minor);
  }
  return inspected as DecodedArchive;
}

/** Decodes an `ArchivePayload` whose package id is already known (the store keeps payloads by id). */
export function decodeArchivePayload(payload: Uint8Array, packageId: string): Package {
  const { minor, bytes } = lf2PackageBytes(payload);
  return decodePackage(bytes, packageId, minor);
}

export interface DecodedDar {
  readonly main: DecodedArchive;
  /** The manifest's other dalfs, in its order. */
  readonly dependencies: readonly DecodedArchive[];
}

/** Default cap on the uncompressed bytes a DAR's named entries may hold (the Amulet DAR holds ≈ 25 MB). */
export const DEFAULT_MAX_DAR_BYTES = 512 * 1024 * 1024;

/** Reads a DAR (zip + manifest, `@ledgerline/canton` readDar) and decodes every dalf it names. */
export async function decodeDar(bytes: Uint8Array, opts: { maxUncompressedBytes?: number } = {}): Promise<DecodedDar> {
  const dar = await readDar(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), {
    maxUncompressedBytes: opts.maxUncompressedBytes ?? DEFAULT_MAX_DAR_BYTES,
  });
  return { main: decodeArchive(dar.main.bytes), dependencies: dar.dependencies.map((d) => decodeArchive(d.bytes)) };
}
