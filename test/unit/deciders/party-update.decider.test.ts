import { describe, expect, it } from 'vitest';
import { partyStream, type ValidatedPartyUpdate } from '@ledgerline/domain';
import { partyUpdateDecider } from '@ledgerline/store';
import { conflictKeysOf, spec } from '../../support/decider-spec';
import { alice, partyRecord } from './fixtures';

const update = spec(partyUpdateDecider);
const patch = (o: Partial<ValidatedPartyUpdate> = {}): ValidatedPartyUpdate => ({
  party: alice,
  isLocal: true,
  annotations: { b: '2' },
  expectedVersion: null,
  maskPaths: ['local_metadata.annotations'],
  identityProviderId: '',
  ...o,
});

describe('party update decider', () => {
  it('merges the annotations, bumps the resource version and answers the record as updated', () => {
    const record = partyRecord(alice, { annotations: { a: '1' }, resourceVersion: 1 });
    update
      .given({ identityProviderExists: true, record })
      .when(patch({ expectedVersion: 1n }))
      .then(
        [
          {
            type: 'PartyDetailsUpdated',
            stream: partyStream(alice),
            data: { party: alice, annotations: { a: '1', b: '2' }, previousResourceVersion: 1, resourceVersion: 2 },
          },
        ],
        { ...record, annotations: { a: '1', b: '2' }, resourceVersion: 2 },
      );
  });

  it('an empty value removes an annotation', () => {
    const record = partyRecord(alice, { annotations: { a: '1', b: '2' } });
    const { answer } = update
      .given({ identityProviderExists: true, record })
      .when(patch({ annotations: { a: '' } }))
      .decision();
    expect(answer.annotations).toEqual({ b: '2' });
  });

  it('a stale resource version, an unknown party and a record of another provider are refused', () => {
    const record = partyRecord(alice, { resourceVersion: 1 });
    update
      .given({ identityProviderExists: true, record })
      .when(patch({ expectedVersion: 0n }))
      .rejects('CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED');
    update.given({ identityProviderExists: true, record: null }).when(patch()).rejects('PARTY_NOT_FOUND');
    update
      .given({ identityProviderExists: true, record })
      .when(patch({ identityProviderId: 'idp1' }))
      .rejects('PERMISSION_DENIED');
  });

  it("changes the party's key and reads the provider's", () => {
    expect(conflictKeysOf(partyUpdateDecider, patch())).toEqual({
      reads: [`party:${alice}`, 'idp:'],
      writes: [`party:${alice}`],
    });
  });
});
