import { describe, expect, it } from 'vitest';
import {
  LedgerError,
  catalogTemplateDirectory,
  packageIdForName,
  packageTemplateDirectory,
  parseTemplateRef,
  pinnedPackagesByName,
  validatePackageIdSelectionPreference,
  type PackageDirectory,
  type PackageInfo,
  type VettingState,
} from '@ledgerline/domain';

/**
 * `packageIdSelectionPreference` and `#name` resolution against a package store: the pinned ids restrict a name's
 * candidates; the JSON layer's and the commands' validation refuse what Canton refuses, with its codes and causes.
 */
const id = (c: string) => c.repeat(64);
const info = (packageId: string, name: string, version: string): PackageInfo => ({
  packageId,
  name,
  version,
  lfVersion: '2.1',
  sizeBytes: 1,
  imports: null,
});
const SYNC = `sync::1220${'ab'.repeat(32)}`;
const v1 = info(id('1'), 'memo', '1.0.0');
const v2 = info(id('2'), 'memo', '2.0.0');
const v3 = info(id('3'), 'memo', '3.0.0'); // stored, not vetted
const other = info(id('4'), 'other', '1.0.0');
const STORED = [v1, v2, v3, other];

const store: PackageDirectory = {
  packagesFor: async (ids, names) => STORED.filter((p) => ids.includes(p.packageId) || names.includes(p.name)),
  vetting: async (syncs): Promise<VettingState[]> =>
    syncs.map((synchronizerId) => ({
      synchronizerId,
      serial: 1,
      packages: [v1, v2, other].map((p) => ({
        packageId: p.packageId,
        validFromInclusive: null,
        validUntilExclusive: null,
      })),
    })),
};

const failure = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    if (e instanceof LedgerError) return { code: e.code, cause: e.causeText };
    throw e;
  }
  throw new Error('no failure');
};

async function resolve(templateId: string, preference: string[] = [], strict = false) {
  const ref = parseTemplateRef(templateId)!;
  const dir = await packageTemplateDirectory(catalogTemplateDirectory({ templates: {} }), store, [ref], {
    strict,
    synchronizerId: SYNC,
    connectedSynchronizers: [SYNC],
    nowMicros: 0n,
    preference,
  });
  return () => dir.resolve(templateId, ref);
}

describe('#name resolution with a package preference', () => {
  it('the highest vetted version, unless a pin restricts the name to other ids', async () => {
    expect((await resolve('#memo:Main:Memo'))()).toMatchObject({
      packageId: v2.packageId,
      packageName: 'memo',
      stored: true,
    });
    expect((await resolve('#memo:Main:Memo', [v1.packageId]))().packageId).toBe(v1.packageId);
    expect((await resolve('#memo:Main:Memo', [v1.packageId, v2.packageId]))().packageId).toBe(v2.packageId);
    // A pin of another name leaves this one alone.
    expect((await resolve('#memo:Main:Memo', [other.packageId]))().packageId).toBe(v2.packageId);
  });

  it('refuses pins the JSON layer cannot honour, when the template is resolved', async () => {
    expect(failure(await resolve('#memo:Main:Memo', [v3.packageId]))).toEqual({
      code: 'JSON_API_PACKAGE_SELECTION_FAILED',
      cause: `No synchronizer satisfies the vetting requirements. Discarded synchronizers: ${SYNC}: No vetted package candidate satisfies the package-id filter 'Commands.packageIdSelectionPreferences'=Map(memo -> Set(${v3.packageId}))`,
    });
    expect(failure(await resolve('#memo:Main:Memo', [id('9')]))).toEqual({
      code: 'JSON_API_PACKAGE_SELECTION_FAILED',
      cause: `Package-id ${id('9')} not known`,
    });
    expect(failure(await resolve('#memo:Main:Memo', ['bad id!']))).toEqual({
      code: 'INVALID_ARGUMENT',
      cause:
        'The submitted request has invalid arguments: packageIdSelectionPreferences: non expected character 0x21 in Daml-LF Package ID "bad id!"',
    });
    // By package id, the JSON layer does not look at the preference.
    expect((await resolve(`${v1.packageId}:Main:Memo`, [id('9')]))().packageId).toBe(v1.packageId);
  });

  it('a name with no vetted package is refused; an unknown one falls back, or is PACKAGE_NAMES_NOT_FOUND when strict', async () => {
    const unvetted = { ...store, vetting: async () => [] };
    const ref = parseTemplateRef('#memo:Main:Memo')!;
    const dir = await packageTemplateDirectory(catalogTemplateDirectory({ templates: {} }), unvetted, [ref], {
      strict: false,
      synchronizerId: SYNC,
      connectedSynchronizers: [SYNC],
      nowMicros: 0n,
    });
    expect(failure(() => dir.resolve('#memo:Main:Memo', ref)).code).toBe('JSON_API_PACKAGE_SELECTION_FAILED');
    const fallback = (await resolve('#nowhere:Main:Memo'))();
    expect(fallback).toMatchObject({ packageId: packageIdForName('nowhere'), packageName: 'nowhere' });
    expect(fallback.stored).toBeFalsy();
    expect(failure(await resolve('#nowhere:Main:Memo', [], true))).toEqual({
      code: 'PACKAGE_NAMES_NOT_FOUND',
      cause: 'The following package names do not match upgradable packages uploaded on this participant: [nowhere].',
    });
  });
});

describe('the commands’ validation of packageIdSelectionPreference', () => {
  it('accepts stored ids, one per package name', () => {
    expect(() => validatePackageIdSelectionPreference([v1.packageId, other.packageId], STORED)).not.toThrow();
    expect(pinnedPackagesByName([v1.packageId, v2.packageId, other.packageId], STORED)).toEqual(
      new Map([
        ['memo', new Set([v1.packageId, v2.packageId])],
        ['other', new Set([other.packageId])],
      ]),
    );
  });

  it('refuses malformed and unknown ids and two ids of one name with INVALID_ARGUMENT', () => {
    const refusal = (pref: string[]) => failure(() => validatePackageIdSelectionPreference(pref, STORED));
    expect(refusal(['bad id!'])).toEqual({
      code: 'INVALID_ARGUMENT',
      cause:
        'The submitted request has invalid arguments: package_id_selection_preference parsing failed with `non expected character 0x21 in Daml-LF Package ID "bad id!"`. The package_id_selection_preference field must contain non-empty and valid package ids',
    });
    expect(refusal([''])!.cause).toContain('parsing failed with `Daml-LF Package ID is empty`');
    expect(refusal([id('9') + 'x'])!.cause).toContain('parsing failed with `Daml-LF Package ID is too long (max: 64)`');
    expect(refusal([id('9')])).toEqual({
      code: 'INVALID_ARGUMENT',
      cause: `The submitted request has invalid arguments: user-specified pkg id (${id('9')}) could not be found`,
    });
    expect(refusal([v1.packageId, v2.packageId])).toEqual({
      code: 'INVALID_ARGUMENT',
      cause: `The submitted request has invalid arguments: duplicate preference for package-name memo: ${v1.packageId} vs ${v2.packageId}`,
    });
  });
});
