import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { decodeDar, validatePackages } from '@ledgerline/daml-lf';
import { conformanceDarFiles } from '../../support/dars';
import { describeWithDars } from '../../support/conformance';

/**
 * Every real DAR Canton 3.5 accepts on upload passes the upload validation (`validatePackages`, Canton's
 * daml-lf/validation): the checks refuse nothing Canton's own compiler produced. The validation time of the Amulet DAR
 * is printed beside its decode time.
 */
describeWithDars('validating the real DARs (LEDGERLINE_CONFORMANCE_DARS)', (root) => {
  const uploadable = [...conformanceDarFiles(root, 'canton'), ...conformanceDarFiles(root, 'splice')].filter(
    (rel) => !rel.endsWith('dummy-1.15.dar') && !rel.endsWith('illformed.dar') && !rel.includes('DamlDefinitions'),
  );

  it('finds the DARs', () => {
    expect(uploadable.length).toBeGreaterThanOrEqual(13);
  });

  for (const rel of uploadable)
    it(`validates ${rel}`, async () => {
      const dar = await decodeDar(fs.readFileSync(path.join(root, rel)));
      expect(() => validatePackages([dar.main, ...dar.dependencies].map((a) => a.package))).not.toThrow();
    });

  it('validates Amulet 0.1.22 in a fraction of its decode time (printed)', async () => {
    const bytes = fs.readFileSync(path.join(root, 'splice/splice-amulet-0.1.22.dar'));
    const t0 = performance.now();
    const dar = await decodeDar(bytes);
    const decodeMs = performance.now() - t0;
    const pkgs = [dar.main, ...dar.dependencies].map((a) => a.package);
    const t1 = performance.now();
    validatePackages(pkgs);
    const validateMs = performance.now() - t1;
    console.log(
      `[daml-lf] splice-amulet-0.1.22.dar: ${pkgs.length} packages decoded in ${decodeMs.toFixed(0)} ms, validated in ${validateMs.toFixed(0)} ms`,
    );
    expect(pkgs.length).toBe(51);
  });
});
