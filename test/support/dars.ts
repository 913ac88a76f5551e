import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { BinaryWriter, WireType } from '@protobuf-ts/runtime';
import { ZipFile } from 'yazl';
import { encodePackage, parsePackage } from '@ledgerline/daml-lf/testing';

/**
 * DARs built in the tests: Daml-LF archives with known package ids (module-less packages: a name, a version, optional
 * declared imports), and zips laid out as damlc writes them. Every defect a test needs can be asked for.
 */

export interface ArchiveSpec {
  name: string;
  version: string;
  /** LF major (default 2). */
  major?: 1 | 2;
  /** LF minor string (default '1'). */
  minor?: string;
  patch?: number;
  /** Declared imports (LF ≥ 2.2's `package_imports`). */
  imports?: string[];
  /** Leave the metadata out. */
  noMetadata?: boolean;
  /** Add a field the LF 2 Package does not have (number 15). */
  unknownPackageField?: boolean;
  /** Distinguishes packages with the same name and version (an interned string that nothing references). */
  salt?: string;
  /**
   * Templates (`Module:Entity`): each a template over `{ owner: Party, text: Text }` signed by its owner, built from LF
   * text (the other options then do not apply, but name, version and minor).
   */
  templates?: string[];
}

export interface TestArchive {
  packageId: string;
  /** The ArchivePayload: what GET /v2/packages/{id} returns. */
  payload: Buffer;
  /** The whole .dalf (Archive). */
  dalf: Buffer;
  spec: ArchiveSpec;
}

/** The LF text of a package whose modules hold `spec.templates`. */
function templatesSource(spec: ArchiveSpec): string {
  const byModule = new Map<string, string[]>();
  for (const t of spec.templates ?? []) {
    const [m, e] = t.split(':');
    byModule.set(m, [...(byModule.get(m) ?? []), e]);
  }
  const modules = [...byModule].map(([m, entities]) => {
    const templates = entities.map((e) => {
      const owner = `Cons @Party [${m}:${e} {owner} this] (Nil @Party)`;
      return `
  record @serializable ${e} = { owner: Party, text: Text } ;
  template (this : ${e}) = {
    precondition True;
    signatories ${owner};
    observers Nil @Party;
  } ;`;
    });
    return `module ${m} {${templates.join('')}\n}`;
  });
  return `metadata ( '${spec.name}' : '${spec.version}' )\n${modules.join('\n')}`;
}

export function lfPackage(spec: ArchiveSpec): Buffer {
  if (spec.templates?.length)
    return Buffer.from(encodePackage(parsePackage(templatesSource(spec), { minor: spec.minor ?? '1' })));
  const w = new BinaryWriter();
  const strings = [spec.name, spec.version, ...(spec.salt ? [spec.salt] : [])];
  for (const s of strings) w.tag(2, WireType.LengthDelimited).string(s);
  if (!spec.noMetadata) {
    const meta = new BinaryWriter();
    meta.tag(2, WireType.Varint).int32(1); // name = interned string 0 (the default, so absent); version = 1
    w.tag(4, WireType.LengthDelimited).bytes(meta.finish());
  }
  if (spec.imports) {
    const imports = new BinaryWriter();
    for (const id of spec.imports) imports.tag(1, WireType.LengthDelimited).string(id);
    w.tag(9, WireType.LengthDelimited).bytes(imports.finish());
  } else if ((spec.major ?? 2) === 2 && (spec.minor ?? '1') !== '1') {
    // LF 2.2+ either declares its imports or says why not (LF 2.1 has neither field).
    w.tag(8, WireType.LengthDelimited).string('package made by a test');
  }
  if (spec.unknownPackageField) w.tag(15, WireType.Varint).int32(1);
  return Buffer.from(w.finish());
}

export function archivePayload(spec: ArchiveSpec): Buffer {
  const w = new BinaryWriter();
  const major = spec.major ?? 2;
  w.tag(major === 2 ? 4 : 2, WireType.LengthDelimited).bytes(lfPackage(spec));
  w.tag(3, WireType.LengthDelimited).string(spec.minor ?? '1');
  if (spec.patch) w.tag(5, WireType.Varint).int32(spec.patch);
  return Buffer.from(w.finish());
}

/** An Archive around `payload` whose hash is `hash` (default: the right one). */
export function archiveOf(
  payload: Buffer,
  hash = createHash('sha256').update(payload).digest('hex'),
  extraField = false,
): Buffer {
  const w = new BinaryWriter();
  w.tag(3, WireType.LengthDelimited).bytes(payload);
  w.tag(4, WireType.LengthDelimited).string(hash);
  if (extraField) w.tag(7, WireType.Varint).int32(1);
  return Buffer.from(w.finish());
}

export function lfArchive(spec: ArchiveSpec): TestArchive {
  const payload = archivePayload(spec);
  const packageId = createHash('sha256').update(payload).digest('hex');
  return { packageId, payload, dalf: archiveOf(payload), spec };
}

/** A manifest as damlc writes it: lines folded at 72 bytes, continuations starting with a space. */
export function damlcManifest(
  mainDalf: string,
  dalfs: string[],
  opts: { format?: string; omit?: string[] } = {},
): string {
  const attrs: Array<[string, string]> = [
    ['Manifest-Version', '1.0'],
    ['Created-By', 'damlc'],
    ['Sdk-Version', '3.4.0'],
    ['Main-Dalf', mainDalf],
    ['Dalfs', dalfs.join(', ')],
    ['Format', opts.format ?? 'daml-lf'],
    ['Encryption', 'non-encrypted'],
  ];
  const lines: string[] = [];
  for (const [k, v] of attrs) {
    if (opts.omit?.includes(k)) continue;
    let line = `${k}: ${v}`;
    lines.push(line.slice(0, 71));
    line = line.slice(71);
    while (line.length) {
      lines.push(` ${line.slice(0, 70)}`);
      line = line.slice(70);
    }
  }
  return `${lines.join('\n')}\n`;
}

export interface DarSpec {
  main: TestArchive;
  deps?: TestArchive[];
  /** Replace the manifest's text. */
  manifest?: string;
  /** Leave these dalfs (by package id) out of the zip while the manifest still names them. */
  omitDalfs?: string[];
  /** Other entries (sources, interface files). */
  extra?: Record<string, Buffer>;
  /** Replace a dalf's bytes (by package id). */
  replaceDalf?: Record<string, Buffer>;
  /** Store entries without compression. */
  stored?: boolean;
}

export const dalfPath = (a: TestArchive, root: string) =>
  `${root}/${a.spec.name}-${a.spec.version}-${a.packageId}.dalf`;

/** A DAR as damlc lays it out: everything under `<name>-<version>-<mainId>/`, deflated, 1980-01-01 timestamps. */
export async function buildDar(spec: DarSpec): Promise<Buffer> {
  const root = `${spec.main.spec.name}-${spec.main.spec.version}-${spec.main.packageId}`;
  const all = [spec.main, ...(spec.deps ?? [])];
  const paths = all.map((a) => dalfPath(a, root));
  const zip = new ZipFile();
  const opts = { mtime: new Date(Date.UTC(1980, 0, 1)), compress: !spec.stored };
  zip.addBuffer(Buffer.from(spec.manifest ?? damlcManifest(paths[0], paths)), 'META-INF/MANIFEST.MF', opts);
  all.forEach((a, i) => {
    if (spec.omitDalfs?.includes(a.packageId)) return;
    zip.addBuffer(spec.replaceDalf?.[a.packageId] ?? a.dalf, paths[i], opts);
  });
  for (const [name, bytes] of Object.entries(
    spec.extra ?? { [`${root}/Main.daml`]: Buffer.from('module Main where\n') },
  ))
    zip.addBuffer(bytes, name, opts);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

/** A zip with arbitrary entries (no manifest unless given). */
export async function zipOf(entries: Record<string, Buffer>): Promise<Buffer> {
  const zip = new ZipFile();
  for (const [name, bytes] of Object.entries(entries)) zip.addBuffer(bytes, name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

/**
 * The folder of real DARs and Canton outputs for the conformance tests, named by LEDGERLINE_CONFORMANCE_DARS (CI sets it
 * to ../shared/dars; locally /work/shared/dars). Unset or missing: outside CI a loud banner and `present: false` (the
 * caller skips), under CI=true `required: true` (the caller fails). Never a silent skip.
 */
export type ConformanceDars = { present: true; root: string } | { present: false; required: boolean; reason: string };

export function conformanceDars(): ConformanceDars {
  const value = process.env.LEDGERLINE_CONFORMANCE_DARS;
  const required = process.env.CI === 'true';
  let reason: string | undefined;
  if (!value) reason = 'LEDGERLINE_CONFORMANCE_DARS is not set (the folder of real DARs, e.g. ../shared/dars)';
  else if (!fs.existsSync(path.resolve(value)))
    reason = `LEDGERLINE_CONFORMANCE_DARS names ${value}, which does not exist`;
  if (!reason) return { present: true, root: path.resolve(value!) };
  if (!required) {
    const line = '!'.repeat(100);
    console.warn(`\n${line}\n[conformance tests] SKIPPED: ${reason}\n${line}\n`);
  }
  return { present: false, required, reason };
}

/** `<root>/<relative>` of every `.dar` under the conformance folder's subfolder `dir`, sorted. */
export function conformanceDarFiles(root: string, dir: string): string[] {
  const base = path.join(root, dir);
  if (!fs.existsSync(base)) return [];
  return fs
    .readdirSync(base)
    .filter((f) => f.endsWith('.dar'))
    .sort()
    .map((f) => path.join(dir, f));
}
