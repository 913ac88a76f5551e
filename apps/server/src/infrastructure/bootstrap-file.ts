import fs from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { checkBootstrapSpec, type BootstrapSpec } from '@ledgerline/domain';

/**
 * Reads the bootstrap file (YAML, or JSON, which is YAML too) and checks it: its syntax, its shape
 * (checkBootstrapSpec) and that every DAR it names can be read. DAR paths come back absolute (relative ones are taken
 * from the file's folder). One problem per defect.
 */
export function readBootstrapFile(file: string): { spec: BootstrapSpec | undefined; problems: string[] } {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    return {
      spec: undefined,
      problems: [`cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`],
    };
  }
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length)
    return { spec: undefined, problems: doc.errors.map((e) => `${path.basename(file)}: ${e.message.split('\n')[0]}`) };
  const { spec, problems } = checkBootstrapSpec(doc.toJS({ maxAliasCount: 100 }));
  const folder = path.dirname(file);
  spec.dars = spec.dars.map((d, i) => {
    const full = path.resolve(folder, d);
    try {
      if (!fs.statSync(full).isFile()) problems.push(`dars[${i}]: ${d} is not a file`);
      else fs.accessSync(full, fs.constants.R_OK);
    } catch (e) {
      problems.push(`dars[${i}]: cannot read ${d} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    return full;
  });
  return { spec: problems.length ? undefined : spec, problems };
}
