import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeArchivePayload, decodeDar, type Module, type Package } from '@ledgerline/daml-lf';
import { encodeArchivePayload, parsePackage } from '@ledgerline/daml-lf/testing';
import { describeWithDars } from '../../support/conformance';
import {
  LF_ENCODER_BUILTIN_VALUES,
  LF_ENCODER_MODULES,
  LF_ENCODER_MODULES_2_1,
} from '../../support/lf-encoder-modules';

/**
 * Our LF-text parser and encoder against Canton's own encoder: the LF-text modules Canton builds test-2.1.dar and
 * test-2.2.dar from (restated in test/support/lf-encoder-modules.ts) are parsed for the DAR's LF version, with the DAR's
 * package id as the self id, encoded and decoded by us, and compared with the DAR's modules decoded.
 *
 * Normalised: the order of modules, definitions, choices and interface instances (Canton's encoder sorts them by name;
 * ours keeps the source order), nothing else. Types, expressions, their shapes for the LF version (n-ary in 2.1, flat
 * in 2.2), literals, flags and serializability must be the same.
 */
/** A JSON-able canonical form: maps as entries sorted by key, bigints as strings. */
export function canonical(v: unknown): unknown {
  if (typeof v === 'bigint') return `${v}n`;
  if (v instanceof Map)
    return [...v.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, x]) => [k, canonical(x)]);
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort())
      if ((v as Record<string, unknown>)[k] !== undefined) out[k] = canonical((v as Record<string, unknown>)[k]);
    return out;
  }
  return v;
}

describeWithDars('LF text + our encoder vs Canton encoder test DARs (LEDGERLINE_CONFORMANCE_DARS)', (darsRoot) => {
  for (const [minor, extra] of [
    ['1', LF_ENCODER_MODULES_2_1],
    ['2', {}],
  ] as const) {
    describe(`test-2.${minor}.dar`, () => {
      let canton: Package;
      let ours: Package;
      it('parses our restated modules for the DAR and encodes them', async () => {
        canton = (await decodeDar(fs.readFileSync(path.join(darsRoot, `canton/lf-encoder-tests/test-2.${minor}.dar`))))
          .main.package;
        const src = [...Object.values(LF_ENCODER_MODULES), ...Object.values(extra)].join('\n');
        const parsed = parsePackage(src, {
          minor,
          selfPackageId: canton.id,
          name: canton.metadata.name,
          version: canton.metadata.version,
        });
        // through our encoder and decoder, under the DAR's package id
        ours = decodeArchivePayload(encodeArchivePayload(parsed), canton.id);
        expect(canonical(ours)).toEqual(canonical(parsed));
        expect(ours.imports).toEqual(canton.imports);
      });

      for (const name of [...Object.keys(LF_ENCODER_MODULES), ...Object.keys(extra)]) {
        it(`module ${name} is Canton's`, () => {
          const theirs: Module | undefined = canton.modules.get(name);
          expect(theirs, `${name} in the DAR`).toBeDefined();
          expect(canonical(ours.modules.get(name))).toEqual(canonical(theirs));
        });
      }

      it('BuiltinMod: builtins as values, with their types', () => {
        const parsed = parsePackage(LF_ENCODER_BUILTIN_VALUES, { minor, selfPackageId: canton.id });
        const mine = decodeArchivePayload(encodeArchivePayload(parsed), canton.id).modules.get('BuiltinMod')!;
        const theirs = canton.modules.get('BuiltinMod')!;
        expect(mine.values.size).toBeGreaterThanOrEqual(10);
        for (const [n, v] of mine.values) expect(canonical(v), n).toEqual(canonical(theirs.values.get(n)));
      });
    });
  }
});
