import { describe, expect, it } from 'vitest';
import { ArchiveParseError, comparePackageVersions, DarFormatError, parseDarManifest } from '@ledgerline/canton';
import { inspectArchive } from '@ledgerline/daml-lf';
import {
  choosePreferredPackages,
  decideUploadDar,
  decideVettingUpdate,
  type PackageInfo,
  type ParsedDar,
  type VettingState,
} from '@ledgerline/domain';
import { archiveOf, lfArchive } from '../../support/dars';

const info = (packageId: string, name: string, version: string): PackageInfo => ({
  packageId,
  name,
  version,
  lfVersion: '2.1',
  sizeBytes: 1,
  imports: null,
});
const vetting = (synchronizerId: string, ids: string[], serial = 1): VettingState => ({
  synchronizerId,
  serial,
  packages: ids.map((packageId) => ({ packageId, validFromInclusive: null, validUntilExclusive: null })),
});

describe('package versions', () => {
  it('compare segment by segment as integers, a prefix being smaller', () => {
    expect(comparePackageVersions('1.10.0', '1.9.0')).toBeGreaterThan(0);
    expect(comparePackageVersions('1.0', '1.0.0')).toBeLessThan(0);
    expect(comparePackageVersions('2.0.0', '2.0.0')).toBe(0);
    expect(['1.2.0', '1.10.0', '0.9', '1.9.0'].sort(comparePackageVersions)).toEqual([
      '0.9',
      '1.2.0',
      '1.9.0',
      '1.10.0',
    ]);
  });
});

describe('DAR manifest', () => {
  it('joins continuation lines, ignores attribute case, splits Dalfs and drops the main dalf from them', () => {
    const text =
      'Manifest-Version: 1.0\r\nmain-dalf: a/main.dalf\r\nDalfs: a/main.dalf, a/dep-one.da\r\n lf,a/dep-two.dalf\r\nFormat:  daml-lf \r\n\r\nName: ignored\r\n';
    expect(parseDarManifest(text)).toEqual({
      mainDalf: 'a/main.dalf',
      dependencies: ['a/dep-one.dalf', 'a/dep-two.dalf'],
    });
  });

  it('names the missing attribute and a wrong format', () => {
    const failure = (text: string) => {
      try {
        parseDarManifest(text);
      } catch (e) {
        return (e as DarFormatError).failure;
      }
      return null;
    };
    expect(failure('Main-Dalf: x\nFormat: daml-lf\n')).toMatchObject({
      kind: 'invalid-dar',
      reason: 'Cannot find attribute: Dalfs',
    });
    expect(failure('Main-Dalf: x\nDalfs: x\nFormat: zip\n')).toMatchObject({
      kind: 'invalid-dar',
      reason: 'Unsupported format: zip',
    });
  });
});

describe('Daml-LF archives', () => {
  it('reads id, LF version, name, version, imports and template names', () => {
    const a = lfArchive({
      name: 'pkg',
      version: '1.2.3',
      minor: '2',
      templates: ['Main:Iou', 'Deep.Mod:Inner'],
    });
    const inspected = inspectArchive(a.dalf);
    expect(inspected.archive).toMatchObject({
      packageId: a.packageId,
      lfVersion: '2.2',
      accepted: true,
      name: 'pkg',
      version: '1.2.3',
      imports: [],
      templates: ['Deep.Mod:Inner', 'Main:Iou'],
    });
    expect(inspected.package!.modules.get('Main')!.templates.has('Iou')).toBe(true);
    expect(Buffer.from(inspected.archive.payload).equals(a.payload)).toBe(true);
    const importing = lfArchive({ name: 'pkg', version: '1.2.4', minor: '2', imports: ['a'.repeat(64)] });
    expect(inspectArchive(importing.dalf).archive.imports).toEqual(['a'.repeat(64)]);
  });

  it('flags refused LF versions without throwing, and throws the reasons of a corrupt archive', () => {
    expect(inspectArchive(lfArchive({ name: 'x', version: '1.0.0', minor: 'dev' }).dalf).archive).toMatchObject({
      lfVersion: '2.dev',
      accepted: false,
    });
    expect(
      inspectArchive(lfArchive({ name: 'x', version: '1.0.0', major: 1, minor: '15' }).dalf).archive,
    ).toMatchObject({
      lfVersion: '1.15',
      accepted: false,
    });
    const a = lfArchive({ name: 'x', version: '1.0.0' });
    expect(() => inspectArchive(archiveOf(a.payload, 'b'.repeat(64)))).toThrow(
      `Mismatching hashes! Expected ${a.packageId} but got ${'b'.repeat(64)}`,
    );
    expect(() => inspectArchive(lfArchive({ name: 'x', version: '1.0.0', noMetadata: true }).dalf)).toThrow(
      'Package.metadata is required in Daml-LF 2.1',
    );
    expect(() => inspectArchive(lfArchive({ name: 'x', version: '1.0.0', minor: '7' }).dalf)).toThrow(
      ArchiveParseError,
    );
    expect(() => inspectArchive(lfArchive({ name: 'x', version: 'v1' }).dalf)).toThrow(/Invalid package version: v1/);
  });
});

describe('uploads, vetting and preference', () => {
  const dar: ParsedDar = {
    mainPackageId: 'm',
    packages: [
      { info: info('m', 'main', '1.0.0'), payload: new Uint8Array() },
      { info: info('d', 'dep', '1.0.0'), payload: new Uint8Array() },
    ],
  };

  it('an upload stores only new packages and vets only unvetted ones; nothing new, no event', () => {
    const first = decideUploadDar({ stored: new Set(), vetting: vetting('s::1', [], 0) }, dar, 'p::1');
    expect(first.newPackages.map((p) => p.info.packageId)).toEqual(['m', 'd']);
    expect(first.events.map((e) => e.type)).toEqual(['PackagesUploaded', 'PackageVettingChanged']);
    const again = decideUploadDar({ stored: new Set(['m', 'd']), vetting: vetting('s::1', ['m', 'd']) }, dar, 'p::1');
    expect(again.events).toEqual([]);
  });

  it('vetting: the serial check first; a change that changes nothing appends nothing', () => {
    const state = vetting('s::1', ['m'], 3);
    const stored = [info('m', 'main', '1.0.0')];
    expect(() => decideVettingUpdate(state, stored, { changes: [], dryRun: false, expectedSerial: 2 }, 'p::1')).toThrow(
      /TOPOLOGY_SERIAL_MISMATCH/,
    );
    const same = decideVettingUpdate(
      state,
      stored,
      {
        changes: [
          {
            kind: 'vet',
            refs: [{ packageId: 'm', packageName: '', packageVersion: '' }],
            validFromInclusive: null,
            validUntilExclusive: null,
          },
        ],
        dryRun: false,
        expectedSerial: 3,
      },
      'p::1',
    );
    expect(same.events).toEqual([]);
    expect(same.next.serial).toBe(3);
  });

  it('prefers the highest version, then the highest id; the smallest synchronizer among complete answers', () => {
    const stored = [info('aa', 'n', '1.10.0'), info('bb', 'n', '1.9.0'), info('cc', 'n', '1.10.0')];
    const req = {
      requirements: [{ parties: ['alice::1220ab'], packageName: 'n' }],
      synchronizerId: '',
      vettingValidAt: '',
    };
    expect(choosePreferredPackages(stored, [vetting('z::1', ['aa', 'bb', 'cc'])], req, 0n)?.packages[0].packageId).toBe(
      'cc',
    );
    const both = choosePreferredPackages(stored, [vetting('z::1', ['cc']), vetting('a::1', ['bb'])], req, 0n);
    expect(both).toMatchObject({ synchronizerId: 'a::1', packages: [{ packageId: 'bb' }] });
    expect(choosePreferredPackages(stored, [vetting('z::1', [])], req, 0n)).toBeNull();
    expect(() =>
      choosePreferredPackages(
        stored,
        [],
        { ...req, requirements: [{ parties: ['alice::1220ab'], packageName: 'other' }] },
        0n,
      ),
    ).toThrow(/PACKAGE_NAMES_NOT_FOUND/);
  });
});
