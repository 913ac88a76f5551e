import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { ArchiveParseError } from '@ledgerline/canton';
import {
  LfDecodeError,
  PackageCache,
  decodeArchivePayload,
  decodeDar,
  qualifiedNameToString,
  type Package,
} from '@ledgerline/daml-lf';
import { encodeArchivePayload } from '@ledgerline/daml-lf/testing';
import { conformanceDarFiles } from '../../support/dars';
import { describeWithDars } from '../../support/conformance';

/**
 * Every real DAR of the conformance folder decodes whole (LF 2.1–2.3), within the nesting bound and without a stack
 * overflow; LF 1 is refused; the 2.dev archives built by Canton 3.4 are refused with a clear message where they use
 * forms Daml-LF 3.5 no longer has. The decode time of the Amulet DAR is printed.
 */
function count(pkgs: Package[]) {
  let templates = 0;
  let choices = 0;
  let interfaces = 0;
  let instances = 0;
  let values = 0;
  for (const p of pkgs)
    for (const m of p.modules.values()) {
      templates += m.templates.size;
      interfaces += m.interfaces.size;
      values += m.values.size;
      for (const t of m.templates.values()) {
        choices += t.choices.size;
        instances += t.implements.size;
      }
    }
  return { templates, choices, interfaces, instances, values };
}

describeWithDars('decoding the real DARs (LEDGERLINE_CONFORMANCE_DARS)', (darsRoot) => {
  const root = darsRoot;
  const read = (rel: string) => fs.readFileSync(path.join(root, rel));
  const refusedDev: Record<string, RegExp> = {
    'canton/DamlDefinitionsServiceMain.dar': /lookup_by_key \(field 8\) was removed/,
    'canton/lf-encoder-tests/test-2.dev.dar': /unknown builtin function 4001/,
  };

  const all = [
    ...conformanceDarFiles(root, 'canton'),
    ...conformanceDarFiles(root, 'canton/lf-encoder-tests'),
    ...conformanceDarFiles(root, 'splice'),
  ];

  it('finds the DARs', () => {
    expect(all.length).toBeGreaterThanOrEqual(19);
  });

  for (const rel of all) {
    it(`decodes ${rel}`, async () => {
      const bytes = read(rel);
      if (rel.endsWith('dummy-1.15.dar')) {
        await expect(decodeDar(bytes)).rejects.toThrow(/Daml-LF 1\.15 is not supported/);
        return;
      }
      if (refusedDev[rel]) {
        const err = await decodeDar(bytes).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(LfDecodeError);
        expect(err).toBeInstanceOf(ArchiveParseError);
        expect((err as Error).message).toMatch(refusedDev[rel]);
        return;
      }
      const dar = await decodeDar(bytes);
      const pkgs = [dar.main, ...dar.dependencies].map((a) => a.package);
      for (const a of [dar.main, ...dar.dependencies]) {
        expect(a.package.id).toBe(a.archive.packageId);
        expect(`2.${a.package.languageVersion.minor}`).toBe(a.archive.lfVersion);
        expect(a.package.metadata.name).toBe(a.archive.name);
        expect(a.package.metadata.version).toBe(a.archive.version);
        // The archive header reader names templates and interfaces alike (what a command's template id may name).
        const named = [...a.package.modules.values()]
          .flatMap((m) => [...m.templates.keys(), ...m.interfaces.keys()].map((t) => `${m.name}:${t}`))
          .sort();
        expect(named).toEqual(a.archive.templates);
        if (a.archive.imports) expect([...a.package.imports].sort()).toEqual([...a.archive.imports].sort());
      }
      // every reference resolves to the package itself or a package of the DAR
      const ids = new Set(pkgs.map((p) => p.id));
      for (const p of pkgs)
        for (const dep of p.imports) expect(ids.has(dep), `${p.metadata.name} imports ${dep}`).toBe(true);
      expect(dar.main.package.modules.size).toBeGreaterThan(0);

      // round trip: decode → encode → decode gives the same AST (under the same package id), and re-encoding is stable
      for (const p of pkgs) {
        const payload = encodeArchivePayload(p);
        const again = decodeArchivePayload(payload, p.id);
        expect(again).toEqual(p);
        expect(Buffer.from(encodeArchivePayload(again)).equals(Buffer.from(payload))).toBe(true);
      }
    });
  }

  it('decodes the ping workflow: templates, choices and their parts', async () => {
    const dar = await decodeDar(read('canton/canton-builtin-admin-workflow-ping.dar'));
    const ping = [...dar.main.package.modules.values()].find((m) => m.name === 'Canton.Internal.Ping');
    expect(ping).toBeDefined();
    const t = ping!.templates.get('Ping')!;
    expect(t).toBeDefined();
    expect([...t.choices.keys()]).toEqual(expect.arrayContaining(['Respond', 'Archive']));
    expect(t.choices.get('Respond')!.consuming).toBe(true);
    expect(ping!.dataTypes.get('Ping')!.cons.tag).toBe('record');
  });

  it('decodes Amulet 0.1.22: templates, choices, interface instances; prints the decode time', async () => {
    const bytes = read('splice/splice-amulet-0.1.22.dar');
    const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;
    const cold = performance.now();
    const coldCpu = process.cpuUsage();
    const dar = await decodeDar(bytes);
    const coldCpuMs = cpuMs(process.cpuUsage(coldCpu));
    const coldMs = performance.now() - cold;
    const warm = performance.now();
    const warmCpu = process.cpuUsage();
    await decodeDar(bytes);
    const warmCpuMs = cpuMs(process.cpuUsage(warmCpu));
    const warmMs = performance.now() - warm;
    const main = count([dar.main.package]);
    console.log(
      `[daml-lf] splice-amulet-0.1.22.dar: ${1 + dar.dependencies.length} packages decoded in ${coldMs.toFixed(0)} ms wall / ${coldCpuMs.toFixed(0)} ms CPU (first), ${warmMs.toFixed(0)} ms wall / ${warmCpuMs.toFixed(0)} ms CPU (again); main: ${JSON.stringify(main)}`,
    );
    expect(main.templates).toBeGreaterThanOrEqual(30);
    expect(main.instances).toBeGreaterThanOrEqual(1);
    const cache = new PackageCache();
    const ids = await cache.warmFromDar(bytes);
    expect(ids[0]).toBe(dar.main.package.id);
    expect(cache.size).toBe(new Set(ids).size);
    // a warm cache answers without decoding again: the same object
    const first = cache.get(ids[0]);
    await cache.warmFromDar(bytes);
    expect(cache.get(ids[0])).toBe(first);
    const impl = [...dar.main.package.modules.values()]
      .flatMap((m) => [...m.templates.values()])
      .find((t) => t.implements.size > 0)!;
    expect([...impl.implements.keys()][0]).toBe(qualifiedNameToString([...impl.implements.values()][0].iface));
  });
});
