import { describe, expect, it } from 'vitest';
import { packageVettingStream, type VettingState, type VettingUpdateRequest } from '@ledgerline/domain';
import { vettingUpdateDecider, type StoredPackage } from '@ledgerline/store';
import { conflictKeysOf, spec } from '../../support/decider-spec';
import { PARTICIPANT, SYNC_A } from './fixtures';

const vettingUpdate = spec(vettingUpdateDecider);
const stored = (packageId: string, name: string): StoredPackage => ({
  packageId,
  name,
  version: '1.0.0',
  lfVersion: '2.1',
  sizeBytes: 1,
  imports: null,
  uploadedAt: '2026-01-01T00:00:00Z',
});
const packages = [stored('m', 'main'), stored('d', 'dep')];
const bounds = (packageId: string) => ({ packageId, validFromInclusive: null, validUntilExclusive: null });
const state = (ids: string[], serial: number): { vetting: VettingState; packages: StoredPackage[] } => ({
  vetting: { synchronizerId: SYNC_A, serial, packages: ids.map(bounds) },
  packages,
});
const vet = (packageId: string): VettingUpdateRequest['changes'][number] => ({
  kind: 'vet',
  refs: [{ packageId, packageName: '', packageVersion: '' }],
  validFromInclusive: null,
  validUntilExclusive: null,
});
const request = (
  changes: VettingUpdateRequest['changes'],
  expectedSerial: number | null = null,
): VettingUpdateRequest => ({ changes, dryRun: false, expectedSerial });
const command = (r: VettingUpdateRequest) => ({ synchronizerId: SYNC_A, request: r, participantId: PARTICIPANT });

describe('vetting update decider', () => {
  it('vets a stored package: PackageVettingChanged with the next serial; answers the entries before and after', () => {
    const { events, answer } = vettingUpdate
      .given(state(['m'], 1))
      .when(command(request([vet('d')], 1)))
      .decision();
    expect(events).toEqual([
      {
        type: 'PackageVettingChanged',
        stream: packageVettingStream(SYNC_A),
        data: { synchronizerId: SYNC_A, participantId: PARTICIPANT, serial: 2, packages: [bounds('m'), bounds('d')] },
      },
    ]);
    const listed = (packageId: string, packageName: string) => ({
      ...bounds(packageId),
      packageName,
      packageVersion: '1.0.0',
    });
    expect(answer).toEqual({
      past: { synchronizerId: SYNC_A, participantId: PARTICIPANT, serial: 1, packages: [listed('m', 'main')] },
      next: {
        synchronizerId: SYNC_A,
        participantId: PARTICIPANT,
        serial: 2,
        packages: [listed('d', 'dep'), listed('m', 'main')],
      },
    });
  });

  it('vetting what is vetted changes nothing', () => {
    expect(
      vettingUpdate
        .given(state(['m'], 3))
        .when(command(request([vet('m')])))
        .decision().events,
    ).toEqual([]);
  });

  it('a serial other than the stored one is refused', () => {
    vettingUpdate
      .given(state(['m'], 3))
      .when(command(request([vet('d')], 2)))
      .rejects('TOPOLOGY_SERIAL_MISMATCH');
  });

  it("changes its synchronizer's vetting and reads every package", () => {
    expect(conflictKeysOf(vettingUpdateDecider, command(request([])))).toEqual({
      reads: [`vetting:${SYNC_A}`, 'packages:all'],
      writes: [`vetting:${SYNC_A}`],
    });
  });
});
