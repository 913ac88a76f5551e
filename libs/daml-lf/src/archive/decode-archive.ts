/**
 * `.dalf` bytes (an `Archive`) and DARs → decoded packages. The envelope (hash function, SHA-256 check, LF version,
 * metadata rules) is `@ledgerline/canton`'s decodeDamlLfArchive, the zip and manifest its readDar: this file only adds
 * the decoding of the package itself.
 */
import { decodeDamlLfArchive, readDar, type DamlLfArchive } from '@ledgerline/canton';
import type { Package } from '../language/ast';
import { decodePackage } from './decode-package';
import { LfDecodeError, WIRE_LEN, WireReader } from './wire';

export interface DecodedArchive {
  /** The envelope as `@ledgerline/canton` reads it (package id, LF version, whether Canton accepts it on upload). */
  readonly archive: DamlLfArchive;
  readonly package: Package;
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
  const archive = decodeDamlLfArchive(dalf);
  const { minor, bytes } = lf2PackageBytes(archive.payload);
  return { archive, package: decodePackage(bytes, archive.packageId, minor) };
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
