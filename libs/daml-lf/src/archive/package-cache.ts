/**
 * Decoded packages by package id, for one process: a plain object the caller owns (no global state). Decoding happens
 * once per id; a DAR upload may warm it with every package the DAR holds.
 */
import { readDar } from '@ledgerline/canton';
import type { Package, PackageId } from '../language/ast';
import { decodeArchive, decodeArchivePayload, checkedPackageId, DEFAULT_MAX_DAR_BYTES } from './decode-archive';

export class PackageCache {
  private readonly packages = new Map<PackageId, Package>();

  get size(): number {
    return this.packages.size;
  }

  has(id: PackageId): boolean {
    return this.packages.has(id);
  }

  get(id: PackageId): Package | undefined {
    return this.packages.get(id);
  }

  ids(): PackageId[] {
    return [...this.packages.keys()];
  }

  /** Adds an already decoded package (e.g. one built by the LF-text parser and the encoder). */
  add(pkg: Package): Package {
    const known = this.packages.get(pkg.id);
    if (known) return known;
    this.packages.set(pkg.id, pkg);
    return pkg;
  }

  /** The package of an `ArchivePayload` stored under `id`, decoded on first use. */
  getOrDecodePayload(id: PackageId, payload: Uint8Array): Package {
    return this.packages.get(id) ?? this.add(decodeArchivePayload(payload, id));
  }

  /** The package of a `.dalf`, decoded unless its id is cached (the hash is checked either way). */
  addArchive(dalf: Uint8Array): Package {
    return this.packages.get(checkedPackageId(dalf)) ?? this.add(decodeArchive(dalf).package);
  }

  /** Decodes every LF 2 package of a DAR not cached yet; returns the ids of the DAR's packages, main first. */
  async warmFromDar(bytes: Uint8Array, opts: { maxUncompressedBytes?: number } = {}): Promise<PackageId[]> {
    const dar = await readDar(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), {
      maxUncompressedBytes: opts.maxUncompressedBytes ?? DEFAULT_MAX_DAR_BYTES,
    });
    return [dar.main, ...dar.dependencies].map((d) => this.addArchive(d.bytes).id);
  }

  delete(id: PackageId): boolean {
    return this.packages.delete(id);
  }

  clear(): void {
    this.packages.clear();
  }
}
