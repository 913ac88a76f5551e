import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { comparePackageVersions } from '@ledgerline/canton';
import { decodeDar, supportsUpgrades, upgradeError, type Package } from '@ledgerline/daml-lf';
import { describeWithDars } from '../../support/conformance';

/**
 * Splice's real releases are valid upgrades of each other, as Canton's upgrade checks find them: every package name
 * shared by splice-amulet 0.1.14 and 0.1.22 (and splice-wallet 0.1.14 and 0.1.23) at two versions passes
 * `upgradeError` old → new; splice-amulet new → old (a downgrade) fails: the newer version added modules.
 */
describeWithDars('upgrade checks on the real Splice DARs (LEDGERLINE_CONFORMANCE_DARS)', (root) => {
  const packagesOf = async (rel: string) => {
    const dar = await decodeDar(fs.readFileSync(path.join(root, rel)));
    return [dar.main, ...dar.dependencies].map((a) => a.package);
  };

  for (const [older, newer] of [
    ['splice/splice-amulet-0.1.14.dar', 'splice/splice-amulet-0.1.22.dar'],
    ['splice/splice-wallet-0.1.14.dar', 'splice/splice-wallet-0.1.23.dar'],
  ])
    it(`${path.basename(newer)} upgrades ${path.basename(older)}, package by package`, async () => {
      const before = await packagesOf(older);
      const after = await packagesOf(newer);
      const all = new Map<string, Package>([...before, ...after].map((p) => [p.id, p]));
      const lookup = (id: string) => all.get(id);
      const pairs = before.flatMap((b) => {
        const a = after.find((p) => p.metadata.name === b.metadata.name);
        return a && a.id !== b.id && supportsUpgrades(b) && supportsUpgrades(a) ? [[b, a] as const] : [];
      });
      expect(pairs.map(([b]) => b.metadata.name)).toContain('splice-amulet');
      for (const [b, a] of pairs) {
        expect(comparePackageVersions(b.metadata.version, a.metadata.version), b.metadata.name).toBeLessThan(0);
        expect(
          upgradeError(b, a, lookup),
          `${b.metadata.name} ${b.metadata.version} → ${a.metadata.version}`,
        ).toBeNull();
      }
      const amulet = pairs.find(([b]) => b.metadata.name === 'splice-amulet')!;
      // The newer version added modules: the older one is no upgrade of it.
      expect(upgradeError(amulet[1], amulet[0], lookup)).toMatch(
        /^Module \S+ appears in package that is being upgraded, but does not appear in the upgrading package\.$/,
      );
    });
});
