import { fromBufferPromise, type Entry, type ZipFile } from 'yauzl';
import { CantonError } from './errors';

/**
 * Reading a DAR: a zip whose `META-INF/MANIFEST.MF` names the main `.dalf` and its dependencies (Canton's GenDarReader
 * and DarManifestReader, daml-lf/archive). Only the entries the manifest names are read; nothing is interpreted.
 */
export const DAR_MANIFEST_PATH = 'META-INF/MANIFEST.MF';

/** Canton refuses any entry of 1 GiB or more as a zip bomb (GenDarReader's EntrySizeThreshold). */
export const DAR_ENTRY_SIZE_THRESHOLD = 1024 ** 3;

export type DarFailure =
  /** Not a zip, no manifest, a required manifest attribute missing, or a format other than `daml-lf`. */
  | { kind: 'invalid-dar'; entries: string[]; reason: string }
  /** The manifest names a dalf that the zip does not hold. */
  | { kind: 'invalid-zip-entry'; name: string; entries: string[] }
  /** An entry at or above the threshold, or the named entries together above the reader's limit. */
  | { kind: 'zip-bomb' };

export class DarFormatError extends CantonError {
  constructor(readonly failure: DarFailure) {
    super(failure.kind === 'invalid-dar' ? failure.reason : failure.kind);
    this.name = 'DarFormatError';
  }
}

export interface DarManifest {
  mainDalf: string;
  /** `Dalfs` without the main dalf, in the manifest's order. */
  dependencies: string[];
}

export interface DarDalf {
  /** The entry's path in the zip. */
  name: string;
  bytes: Buffer;
}

export interface DarFile {
  manifest: DarManifest;
  /** Every entry name of the zip, in the zip's order. */
  entries: string[];
  main: DarDalf;
  dependencies: DarDalf[];
}

export interface ReadDarOptions {
  /** Most uncompressed bytes read from the manifest and the named dalfs together (beyond: zip bomb). */
  maxUncompressedBytes: number;
  /** Read only the main dalf (`dependencies` is then empty): enough to learn the DAR's main package id. */
  mainOnly?: boolean;
}

/** Reads the manifest and the dalfs it names; throws DarFormatError for what Canton refuses at this stage. */
export async function readDar(bytes: Buffer, opts: ReadDarOptions): Promise<DarFile> {
  let zip: ZipFile;
  try {
    zip = await fromBufferPromise(bytes, {
      lazyEntries: true,
      validateEntrySizes: true,
      strictFileNames: false,
      decodeStrings: true,
    });
  } catch (e) {
    throw new DarFormatError({
      kind: 'invalid-dar',
      entries: [],
      reason: `not a zip archive: ${(e as Error).message}`,
    });
  }
  try {
    const byName = await listEntries(zip);
    const entries = [...byName.keys()];
    for (const e of byName.values())
      if (e.uncompressedSize >= DAR_ENTRY_SIZE_THRESHOLD) throw new DarFormatError({ kind: 'zip-bomb' });
    const manifestEntry = byName.get(DAR_MANIFEST_PATH);
    if (!manifestEntry)
      throw new DarFormatError({ kind: 'invalid-dar', entries, reason: `${DAR_MANIFEST_PATH} not found` });
    let budget = opts.maxUncompressedBytes;
    const take = (e: Entry) => {
      budget -= e.uncompressedSize;
      if (budget < 0) throw new DarFormatError({ kind: 'zip-bomb' });
    };
    take(manifestEntry);
    const manifest = parseDarManifest((await readEntry(zip, manifestEntry, entries)).toString('utf8'), entries);
    const dalf = async (name: string): Promise<DarDalf> => {
      const entry = byName.get(name);
      if (!entry) throw new DarFormatError({ kind: 'invalid-zip-entry', name, entries });
      take(entry);
      return { name, bytes: await readEntry(zip, entry, entries) };
    };
    const main = await dalf(manifest.mainDalf);
    const dependencies: DarDalf[] = [];
    if (!opts.mainOnly) for (const name of manifest.dependencies) dependencies.push(await dalf(name));
    return { manifest, entries, main, dependencies };
  } finally {
    zip.close();
  }
}

/** The zip's entries by name (a later entry of the same name replaces an earlier one, as a name → bytes map would). */
function listEntries(zip: ZipFile): Promise<Map<string, Entry>> {
  return new Promise((resolve, reject) => {
    const out = new Map<string, Entry>();
    zip.on('entry', (e: Entry) => {
      out.set(e.fileName, e);
      zip.readEntry();
    });
    zip.on('end', () => resolve(out));
    zip.on('error', (e: Error) =>
      reject(new DarFormatError({ kind: 'invalid-dar', entries: [...out.keys()], reason: e.message })),
    );
    zip.readEntry();
  });
}

/** An entry's bytes, in one buffer of its declared size (the reader checks the size it finds against it). */
async function readEntry(zip: ZipFile, entry: Entry, entries: string[]): Promise<Buffer> {
  const out = Buffer.allocUnsafe(entry.uncompressedSize);
  let at = 0;
  try {
    const stream = await zip.openReadStreamPromise(entry);
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (at + chunk.length > out.length) throw new Error(`entry ${entry.fileName} is larger than declared`);
      chunk.copy(out, at);
      at += chunk.length;
    }
  } catch (e) {
    throw new DarFormatError({ kind: 'invalid-dar', entries, reason: `${entry.fileName}: ${(e as Error).message}` });
  }
  if (at !== out.length)
    throw new DarFormatError({ kind: 'invalid-dar', entries, reason: `${entry.fileName} is shorter than declared` });
  return out;
}

/**
 * The manifest's main section as java.util.jar.Manifest reads it: `Name: value` lines, a line starting with one space
 * continues the previous one, the first empty line ends the section; attribute names are case-insensitive.
 * `Main-Dalf`, `Dalfs` and `Format` are required and `Format` must be `daml-lf` (Canton's DarManifestReader).
 */
export function parseDarManifest(text: string, entries: string[] = []): DarManifest {
  const lines: string[] = [];
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') break;
    if (line.startsWith(' ') && lines.length > 0) lines[lines.length - 1] += line.slice(1);
    else lines.push(line);
  }
  const attributes = new Map<string, string>();
  for (const line of lines) {
    const at = line.indexOf(': ');
    if (at <= 0) throw new DarFormatError({ kind: 'invalid-dar', entries, reason: `Invalid manifest line: ${line}` });
    const key = line.slice(0, at).toLowerCase();
    if (!attributes.has(key)) attributes.set(key, line.slice(at + 2));
  }
  const attribute = (key: string): string => {
    const v = attributes.get(key.toLowerCase());
    if (v === undefined)
      throw new DarFormatError({ kind: 'invalid-dar', entries, reason: `Cannot find attribute: ${key}` });
    return v;
  };
  const mainDalf = attribute('Main-Dalf').trim();
  const dalfs = attribute('Dalfs')
    .split(',')
    .map((s) => s.trim());
  const format = attribute('Format').trim();
  if (format !== 'daml-lf')
    throw new DarFormatError({ kind: 'invalid-dar', entries, reason: `Unsupported format: ${format}` });
  return { mainDalf, dependencies: dalfs.filter((d) => d !== mainDalf && d !== '') };
}
