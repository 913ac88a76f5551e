import { createHash } from 'node:crypto';
import { MessageType, RepeatType, ScalarType } from '@protobuf-ts/runtime';
import { CantonError } from './errors';

/**
 * The Daml-LF archive envelope, read as far as a store needs it and no further: the `Archive` (hash function, payload,
 * hash), the `ArchivePayload` (LF major, minor, patch) and, for LF 2, the `Package` fields that hold the package's name,
 * version and declared imports. Module contents stay opaque bytes: nothing is decoded or evaluated.
 *
 * The message layouts are Daml-LF's (daml_lf.proto, daml_lf2.proto, daml_lf1.proto; field numbers only), written here for
 * the protobuf-ts runtime. Checks and messages follow Canton's Reader and DecodeV2 (daml-lf/archive).
 */

interface ArchiveMessage {
  hashFunction: number;
  payload: Uint8Array;
  hash: string;
}

const ArchiveMessage = new MessageType<ArchiveMessage>('daml_lf.Archive', [
  { no: 1, name: 'hash_function', kind: 'scalar', T: ScalarType.INT32 },
  { no: 3, name: 'payload', kind: 'scalar', T: ScalarType.BYTES },
  { no: 4, name: 'hash', kind: 'scalar', T: ScalarType.STRING },
]);

interface ArchivePayloadMessage {
  minor: string;
  patch: number;
  sum:
    | { oneofKind: 'damlLf1'; damlLf1: Uint8Array }
    | { oneofKind: 'damlLf2'; damlLf2: Uint8Array }
    | { oneofKind: undefined };
}

const ArchivePayloadMessage = new MessageType<ArchivePayloadMessage>('daml_lf.ArchivePayload', [
  { no: 2, name: 'daml_lf_1', kind: 'scalar', oneof: 'sum', T: ScalarType.BYTES },
  { no: 3, name: 'minor', kind: 'scalar', T: ScalarType.STRING },
  { no: 4, name: 'daml_lf_2', kind: 'scalar', oneof: 'sum', T: ScalarType.BYTES },
  { no: 5, name: 'patch', kind: 'scalar', T: ScalarType.INT32 },
]);

interface PackageImportsMessage {
  importedPackages: string[];
}

const PackageImportsMessage = new MessageType<PackageImportsMessage>('daml_lf2.PackageImports', [
  { no: 1, name: 'imported_packages', kind: 'scalar', repeat: RepeatType.UNPACKED, T: ScalarType.STRING },
]);

/** LF 2 `Package`: every field declared (unknown ones are refused); messages other than the imports stay bytes. */
interface Lf2PackageMessage {
  modules: Uint8Array[];
  internedStrings: string[];
  internedDottedNames: Uint8Array[];
  metadata?: Uint8Array;
  imports:
    | { oneofKind: 'noImportedPackagesReason'; noImportedPackagesReason: string }
    | { oneofKind: 'packageImports'; packageImports: PackageImportsMessage }
    | { oneofKind: undefined };
}

const opaque = (no: number, name: string) => ({
  no,
  name,
  kind: 'scalar' as const,
  repeat: RepeatType.UNPACKED as const,
  T: ScalarType.BYTES,
});

const Lf2PackageMessage = new MessageType<Lf2PackageMessage>('daml_lf2.Package', [
  opaque(1, 'modules'),
  { no: 2, name: 'interned_strings', kind: 'scalar', repeat: RepeatType.UNPACKED, T: ScalarType.STRING },
  opaque(3, 'interned_dotted_names'),
  { no: 4, name: 'metadata', kind: 'scalar', opt: true, T: ScalarType.BYTES },
  opaque(5, 'interned_types'),
  opaque(6, 'interned_kinds'),
  opaque(7, 'interned_exprs'),
  { no: 8, name: 'no_imported_packages_reason', kind: 'scalar', oneof: 'imports', T: ScalarType.STRING },
  { no: 9, name: 'package_imports', kind: 'message', oneof: 'imports', T: () => PackageImportsMessage },
]);

/** LF 2 `Module`, read for its name and its templates' and interfaces' names only (definitions stay bytes). */
interface ModuleMessage {
  nameInternedDname: number;
  templates: Uint8Array[];
  interfaces: Uint8Array[];
}

const ModuleMessage = new MessageType<ModuleMessage>('daml_lf2.Module', [
  { no: 1, name: 'name_interned_dname', kind: 'scalar', T: ScalarType.INT32 },
  opaque(6, 'templates'),
  opaque(8, 'interfaces'),
]);

/** LF 2 `DefTemplate`, read for its name only. */
interface DefTemplateMessage {
  tyconInternedDname: number;
}

const DefTemplateMessage = new MessageType<DefTemplateMessage>('daml_lf2.DefTemplate', [
  { no: 1, name: 'tycon_interned_dname', kind: 'scalar', T: ScalarType.INT32 },
]);

/** LF 2 `DefInterface`, read for its name only. */
const DefInterfaceMessage = new MessageType<DefTemplateMessage>('daml_lf2.DefInterface', [
  { no: 2, name: 'tycon_interned_dname', kind: 'scalar', T: ScalarType.INT32 },
]);

interface InternedDottedNameMessage {
  segmentsInternedStr: number[];
}

const InternedDottedNameMessage = new MessageType<InternedDottedNameMessage>('daml_lf2.InternedDottedName', [
  { no: 1, name: 'segments_interned_str', kind: 'scalar', repeat: RepeatType.PACKED, T: ScalarType.INT32 },
]);

/** LF 1 `Package`, read leniently (LF 1 is refused on upload anyway): the interned strings and the metadata. */
interface Lf1PackageMessage {
  internedStrings: string[];
  metadata?: Uint8Array;
}

const Lf1PackageMessage = new MessageType<Lf1PackageMessage>('daml_lf1.Package', [
  { no: 2, name: 'interned_strings', kind: 'scalar', repeat: RepeatType.UNPACKED, T: ScalarType.STRING },
  { no: 4, name: 'metadata', kind: 'scalar', opt: true, T: ScalarType.BYTES },
]);

/** `PackageMetadata` (LF 1 and 2): name and version as indexes into the interned strings. */
interface PackageMetadataMessage {
  nameInternedStr: number;
  versionInternedStr: number;
}

const PackageMetadataMessage = new MessageType<PackageMetadataMessage>('daml_lf.PackageMetadata', [
  { no: 1, name: 'name_interned_str', kind: 'scalar', T: ScalarType.INT32 },
  { no: 2, name: 'version_interned_str', kind: 'scalar', T: ScalarType.INT32 },
]);

/** Known LF minors (a minor outside these lists is not an LF version at all). */
const LF2_MINORS = ['1', '2', '3', '4-rc1', 'dev'];
const LF1_MINORS = ['6', '7', '8', '11', '12', '13', '14', '15', '17', 'dev'];

/** The LF versions Canton 3.5 accepts on upload by default (the stable range). */
export const ACCEPTED_LF_VERSIONS = ['2.1', '2.2', '2.3'] as const;

/** An archive that is not a well-formed, self-consistent Daml-LF archive: Canton's DAR_PARSE_ERROR reasons. */
export class ArchiveParseError extends CantonError {
  constructor(message: string) {
    super(message);
    this.name = 'ArchiveParseError';
  }
}

export interface DamlLfArchive {
  /** Lowercase hex SHA-256 of the payload: the package id. */
  packageId: string;
  /** The serialized ArchivePayload (a view into the archive's bytes). */
  payload: Uint8Array;
  /** `<major>.<minor>`, e.g. `2.1`, `2.dev`, `1.15`. */
  lfVersion: string;
  /** Whether Canton 3.5 accepts this LF version on upload. */
  accepted: boolean;
  /** Name and version from the package metadata; null where they were not read (a refused LF version without metadata). */
  name: string | null;
  version: string | null;
  /** LF ≥ 2.2: the package ids the package declares it imports; null where the package does not declare them. */
  imports: string[] | null;
  /**
   * The package's templates and interfaces as `Module:Entity` (sorted): what a command's template id may name. Null where
   * they were not read (a refused LF version).
   */
  templates: string[] | null;
}

const PACKAGE_ID = /^[A-Za-z0-9\-_ ]{1,64}$/;
const PACKAGE_NAME = /^[A-Za-z0-9\-_]{1,255}$/;
const PACKAGE_VERSION = /^(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))*$/;

export const isPackageId = (s: string): boolean => PACKAGE_ID.test(s);
export const isPackageName = (s: string): boolean => PACKAGE_NAME.test(s);
export const isPackageVersion = (s: string): boolean => s.length <= 255 && PACKAGE_VERSION.test(s);

/** Why `s` is not a package id (Canton's PackageId string rules), or null if it is one. */
export function packageIdProblem(s: string): string | null {
  if (s.length === 0) return 'Expected a non-empty string';
  if (s.length > 64) return `String is too long: ${s.length} > 64`;
  if (!PACKAGE_ID.test(s))
    return `non expected character 0x${s
      .split('')
      .find((c) => !/[A-Za-z0-9\-_ ]/.test(c))!
      .codePointAt(0)!
      .toString(16)} in Daml-LF Package ID "${s}"`;
  return null;
}

/** Package versions compare segment by segment as integers, a prefix being smaller (`1.10.0 > 1.9.0`, `1.0 < 1.0.0`). */
export function comparePackageVersions(a: string, b: string): number {
  const x = a.split('.').map(BigInt);
  const y = b.split('.').map(BigInt);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  return x.length - y.length;
}

function parse<T extends object>(type: MessageType<T>, bytes: Uint8Array, strict: boolean): T {
  try {
    return type.fromBinary(bytes, { readUnknownField: strict ? 'throw' : false });
  } catch (e) {
    throw new ArchiveParseError(`${type.typeName}: ${(e as Error).message}`);
  }
}

/**
 * Decodes a `.dalf`: the envelope, the hash check, the LF version, and for accepted versions the package's name, version
 * and imports. Throws ArchiveParseError (Canton's DAR_PARSE_ERROR reasons). A refused LF version is reported through
 * `accepted`, not thrown: Canton checks versions after every archive of a DAR has been parsed.
 */
/**
 * The package id a dalf's `Archive` declares (its `hash` field), without checking or decoding the payload: enough to
 * ask whether the package is stored already. An upload still decodes and checks it (`decodeDamlLfArchive`).
 */
export function declaredPackageId(dalf: Uint8Array): string {
  return parse(ArchiveMessage, dalf, true).hash;
}

export function decodeDamlLfArchive(dalf: Uint8Array): DamlLfArchive {
  const archive = parse(ArchiveMessage, dalf, true);
  if (archive.hashFunction !== 0) throw new ArchiveParseError('Unrecognized hash function');
  const hashProblem = packageIdProblem(archive.hash);
  if (hashProblem) throw new ArchiveParseError(`Invalid hash: ${hashProblem}`);
  const computed = createHash('sha256').update(archive.payload).digest('hex');
  if (computed !== archive.hash)
    throw new ArchiveParseError(`Mismatching hashes! Expected ${computed} but got ${archive.hash}`);
  const packageId = archive.hash;

  const payload = parse(ArchivePayloadMessage, archive.payload, true);
  const base = { packageId, payload: archive.payload };
  switch (payload.sum.oneofKind) {
    case 'damlLf1': {
      if (payload.patch !== 0) throw new ArchiveParseError('Patch version is not supported for LF1');
      if (!LF1_MINORS.includes(payload.minor))
        throw new ArchiveParseError(`Unknown LF minor version 1.${payload.minor}`);
      const pkg = parse(Lf1PackageMessage, payload.sum.damlLf1, false);
      const meta = pkg.metadata
        ? metadataOf(pkg.metadata, pkg.internedStrings, packageId)
        : { name: null, version: null };
      return { ...base, lfVersion: `1.${payload.minor}`, accepted: false, ...meta, imports: null, templates: null };
    }
    case 'damlLf2': {
      if (!LF2_MINORS.includes(payload.minor))
        throw new ArchiveParseError(`Unknown LF minor version 2.${payload.minor}`);
      const lfVersion = `2.${payload.minor}`;
      const accepted = (ACCEPTED_LF_VERSIONS as readonly string[]).includes(lfVersion);
      if (!accepted) {
        // Refused whatever it holds; its Package is read leniently, for the name and version a message may show.
        const pkg = parse(Lf1PackageMessage, payload.sum.damlLf2, false);
        let meta: { name: string | null; version: string | null } = { name: null, version: null };
        try {
          if (pkg.metadata) meta = metadataOf(pkg.metadata, pkg.internedStrings, packageId);
        } catch {
          // a refused package's metadata is not checked
        }
        return { ...base, lfVersion, accepted, ...meta, imports: null, templates: null };
      }
      if (payload.patch !== 0)
        throw new ArchiveParseError(`Unknown patch version ${payload.patch} for LF ${lfVersion}`);
      const pkg = parse(Lf2PackageMessage, payload.sum.damlLf2, true);
      if (!pkg.metadata) throw new ArchiveParseError(`Package.metadata is required in Daml-LF ${lfVersion}`);
      const meta = metadataOf(pkg.metadata, pkg.internedStrings, packageId);
      const imports = pkg.imports.oneofKind === 'packageImports' ? pkg.imports.packageImports.importedPackages : null;
      if (imports)
        for (const id of imports)
          if (!isPackageId(id)) throw new ArchiveParseError(`Invalid imported package id: ${id}`);
      return { ...base, lfVersion, accepted, ...meta, imports, templates: templateNames(pkg) };
    }
    default:
      throw new ArchiveParseError('Unrecognized or Unsupported LF version');
  }
}

function metadataOf(
  bytes: Uint8Array,
  strings: readonly string[],
  packageId: string,
): { name: string; version: string } {
  const meta = parse(PackageMetadataMessage, bytes, false);
  const interned = (i: number) => {
    if (i < 0 || i >= strings.length)
      throw new ArchiveParseError(
        `Failed to parse package metadata of ${packageId}: invalid internedString table index ${i}`,
      );
    return strings[i];
  };
  const name = interned(meta.nameInternedStr);
  const version = interned(meta.versionInternedStr);
  if (!isPackageName(name))
    throw new ArchiveParseError(`Failed to parse package metadata of ${packageId}: Invalid package name: ${name}`);
  if (!isPackageVersion(version))
    throw new ArchiveParseError(
      `Failed to parse package metadata of ${packageId}: Invalid package version: ${version}`,
    );
  return { name, version };
}

/** `Module:Entity` of every template and interface of an LF 2 package: names only, read from the definitions' headers. */
function templateNames(pkg: Lf2PackageMessage): string[] {
  const dotted = (i: number): string => {
    if (i < 0 || i >= pkg.internedDottedNames.length)
      throw new ArchiveParseError(`invalid internedDottedName table index ${i}`);
    const name = parse(InternedDottedNameMessage, pkg.internedDottedNames[i], false);
    return name.segmentsInternedStr
      .map((s) => {
        if (s < 0 || s >= pkg.internedStrings.length)
          throw new ArchiveParseError(`invalid internedString table index ${s}`);
        return pkg.internedStrings[s];
      })
      .join('.');
  };
  const out: string[] = [];
  for (const bytes of pkg.modules) {
    const module = parse(ModuleMessage, bytes, false);
    const moduleName = dotted(module.nameInternedDname);
    for (const t of module.templates)
      out.push(`${moduleName}:${dotted(parse(DefTemplateMessage, t, false).tyconInternedDname)}`);
    for (const i of module.interfaces)
      out.push(`${moduleName}:${dotted(parse(DefInterfaceMessage, i, false).tyconInternedDname)}`);
  }
  return out.sort();
}
