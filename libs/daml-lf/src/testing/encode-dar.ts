/**
 * Writing a DAR: a zip whose `META-INF/MANIFEST.MF` names the main dalf and the dependencies, laid out as damlc lays it
 * out (`<name>-<version>-<id>/<name>-<version>-<id>.dalf`, manifest lines folded at 72 bytes). The reader is
 * `@ledgerline/canton`'s readDar, so whatever this writes that reader accepts.
 */
import { ZipFile } from 'yazl';
import { decodeArchive } from '../archive/decode-archive';
import type { Package } from '../language/ast';
import { encodeArchive, type EncodedArchive } from './encode-package';

/** A dalf already encoded (kept byte for byte, e.g. a real daml-prim). */
export interface DalfBytes {
  readonly dalf: Uint8Array;
}

export interface EncodedDar {
  readonly dar: Buffer;
  readonly main: EncodedArchive;
  readonly dependencies: readonly EncodedArchive[];
}

/** The manifest text of a DAR, as damlc writes it. */
export function darManifest(mainDalf: string, dalfs: readonly string[], sdkVersion = '3.4.0'): string {
  const attrs: Array<[string, string]> = [
    ['Manifest-Version', '1.0'],
    ['Created-By', 'ledgerline'],
    ['Sdk-Version', sdkVersion],
    ['Main-Dalf', mainDalf],
    ['Dalfs', dalfs.join(', ')],
    ['Format', 'daml-lf'],
    ['Encryption', 'non-encrypted'],
  ];
  const lines: string[] = [];
  for (const [k, v] of attrs) {
    let line = `${k}: ${v}`;
    lines.push(line.slice(0, 72));
    line = line.slice(72);
    while (line.length) {
      lines.push(` ${line.slice(0, 71)}`);
      line = line.slice(71);
    }
  }
  return `${lines.join('\n')}\n\n`;
}

function archiveOf(p: Package | DalfBytes): { encoded: EncodedArchive; name: string; version: string } {
  if ('dalf' in p) {
    const { archive: a } = decodeArchive(p.dalf);
    return {
      encoded: { packageId: a.packageId, payload: a.payload, dalf: p.dalf },
      name: a.name ?? 'package',
      version: a.version ?? '0.0.0',
    };
  }
  return { encoded: encodeArchive(p), name: p.metadata.name, version: p.metadata.version };
}

/** Encodes `main` and its dependencies and zips them into a DAR. */
export async function encodeDar(
  main: Package | DalfBytes,
  dependencies: ReadonlyArray<Package | DalfBytes> = [],
): Promise<EncodedDar> {
  const m = archiveOf(main);
  const deps = dependencies.map(archiveOf);
  const root = `${m.name}-${m.version}-${m.encoded.packageId}`;
  const path = (a: { encoded: EncodedArchive; name: string; version: string }) =>
    `${root}/${a.name}-${a.version}-${a.encoded.packageId}.dalf`;
  const paths = [m, ...deps].map(path);
  const zip = new ZipFile();
  const opts = { mtime: new Date(Date.UTC(1980, 0, 1)), compress: true };
  zip.addBuffer(Buffer.from(darManifest(paths[0], paths)), 'META-INF/MANIFEST.MF', opts);
  [m, ...deps].forEach((a, i) => zip.addBuffer(Buffer.from(a.encoded.dalf), paths[i], opts));
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream as AsyncIterable<Buffer>) chunks.push(c);
  return { dar: Buffer.concat(chunks), main: m.encoded, dependencies: deps.map((d) => d.encoded) };
}
