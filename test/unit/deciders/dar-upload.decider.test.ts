import { describe, expect, it } from 'vitest';
import {
  packageStream,
  packageVettingStream,
  type PackageInfo,
  type ParsedDar,
  type VettingState,
} from '@ledgerline/domain';
import { darUploadDecider } from '@ledgerline/store';
import { conflictKeysOf, spec } from '../../support/decider-spec';
import { PARTICIPANT, SYNC_A } from './fixtures';

const upload = spec(darUploadDecider);
const info = (packageId: string, imports: string[] | null = null): PackageInfo => ({
  packageId,
  name: `n-${packageId}`,
  version: '1.0.0',
  lfVersion: '2.1',
  sizeBytes: 1,
  imports,
});
const dar: ParsedDar = {
  mainPackageId: 'm',
  packages: [
    { info: info('m', ['d', 'x']), payload: new Uint8Array([1]) },
    { info: info('d'), payload: new Uint8Array([2]) },
  ],
};
const vetting = (ids: string[], serial: number): VettingState => ({
  synchronizerId: SYNC_A,
  serial,
  packages: ids.map((packageId) => ({ packageId, validFromInclusive: null, validUntilExclusive: null })),
});
const unvetted = (packageId: string) => ({ packageId, validFromInclusive: null, validUntilExclusive: null });

describe('DAR upload decider', () => {
  it('stores the new packages (their archives written first) and vets the DAR on the synchronizer', () => {
    const d = upload
      .given({ stored: new Set(['x', 'd']), vetting: vetting(['d'], 1) })
      .when({ dar, vetOn: SYNC_A, participantId: PARTICIPANT })
      .decision();
    expect(d.writesFirst).toBe(true);
    expect(d.events).toEqual([
      {
        type: 'PackagesUploaded',
        stream: packageStream('m'),
        data: { mainPackageId: 'm', packages: [dar.packages[0].info] },
      },
      {
        type: 'PackageVettingChanged',
        stream: packageVettingStream(SYNC_A),
        data: {
          synchronizerId: SYNC_A,
          participantId: PARTICIPANT,
          serial: 2,
          packages: [unvetted('d'), unvetted('m')],
        },
      },
    ]);
  });

  it('a DAR stored and vetted already changes nothing and writes nothing', () => {
    const d = upload
      .given({ stored: new Set(['m', 'd', 'x']), vetting: vetting(['m', 'd'], 4) })
      .when({ dar, vetOn: SYNC_A, participantId: PARTICIPANT })
      .decision();
    expect(d).toEqual({ events: [], answer: undefined, writesFirst: false });
  });

  it('a missing dependency refuses the DAR', () => {
    upload
      .given({ stored: new Set(), vetting: null })
      .when({ dar, vetOn: null, participantId: PARTICIPANT })
      .rejects('DAR_DEPENDENCIES_NOT_VALID');
  });

  it("changes every package's key (vetting changes read them all) and the vetting of its synchronizer", () => {
    expect(conflictKeysOf(darUploadDecider, { dar, vetOn: SYNC_A, participantId: PARTICIPANT }).writes).toEqual([
      'packages:all',
      `vetting:${SYNC_A}`,
    ]);
    expect(conflictKeysOf(darUploadDecider, { dar, vetOn: null, participantId: PARTICIPANT }).writes).toEqual([
      'packages:all',
    ]);
  });
});
