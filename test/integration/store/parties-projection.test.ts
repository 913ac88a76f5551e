import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  decideAllocateParty,
  decideCreateIdentityProvider,
  decideDeleteIdentityProvider,
  decideUpdateIdentityProvider,
  decideUpdatePartyDetails,
  validateUpdatePartyDetails,
  type NewLedgerEvent,
} from '@ledgerline/domain';
import {
  dumpProjections,
  EventStore,
  IdentityProvidersRepository,
  PartiesRepository,
  rebuildProjections,
  type Database,
} from '@ledgerline/store';
import { openTestDatabase } from '../../support/database';

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database.close();
});

const NS = '1220' + 'cd'.repeat(32);
const SYNC = 'global::1220' + '33'.repeat(32);
const parties = new PartiesRepository();
const idps = new IdentityProvidersRepository();

describe('party_details and identity_providers projections', () => {
  it('the database refuses a PartyDetailsUpdated whose previous version is not the stored one (compare-and-increment)', async () => {
    const store = new EventStore(database.db, { participantId: `p::${NS}` });
    const party = `cas::${NS}`;
    await store.execute(async (tx) =>
      tx.append(
        decideAllocateParty(
          {
            existing: null,
            identityProviderExists: true,
            user: null,
            connectedSynchronizers: [SYNC],
            participantId: `p::${NS}`,
            namespace: NS,
            selfAllocationQuota: null,
          },
          {
            partyIdHint: 'cas',
            annotations: {},
            resourceVersion: '',
            identityProviderId: '',
            synchronizerId: '',
            userId: '',
          },
        ).events,
      ),
    );
    const stale: NewLedgerEvent = {
      type: 'PartyDetailsUpdated',
      stream: `party:${party}`,
      data: { party, annotations: { x: 'y' }, previousResourceVersion: 5, resourceVersion: 6 },
    };
    await expect(store.append([stale])).rejects.toMatchObject({ code: 'SERVICE_NOT_RUNNING' });
    expect(await parties.get(database.db, party)).toMatchObject({ resourceVersion: 0, annotations: {} });
  });

  it('rebuilt projections equal the live ones after a random party/IDP workload', async () => {
    const store = new EventStore(database.db, { participantId: `p::${NS}` });
    let seed = 7;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const ops: Array<Promise<unknown>> = [];
    for (let i = 0; i < 300; i++) {
      const hint = `r${rnd(20)}`;
      const party = `${hint}::${NS}`;
      const idpId = `idp-${rnd(4)}`;
      const kind = rnd(6);
      ops.push(
        store
          .execute(async (tx) => {
            const idpState = await idps.state(tx.db, idpId, `https://${idpId}`);
            if (kind === 0) {
              const rec = await parties.get(tx.db, party);
              const idp = rnd(2) ? '' : idpId;
              return tx.append(
                decideAllocateParty(
                  {
                    existing: rec,
                    identityProviderExists: await idps.exists(tx.db, idp),
                    user: null,
                    connectedSynchronizers: [SYNC],
                    participantId: `p::${NS}`,
                    namespace: NS,
                    selfAllocationQuota: null,
                  },
                  {
                    partyIdHint: hint,
                    annotations: { n: String(i) },
                    resourceVersion: '',
                    identityProviderId: idp,
                    synchronizerId: '',
                    userId: '',
                  },
                ).events,
              );
            }
            if (kind <= 2) {
              const rec = await parties.get(tx.db, party);
              const req = validateUpdatePartyDetails(
                {
                  partyDetails: {
                    party,
                    isLocal: true,
                    localMetadata: {
                      resourceVersion: rnd(2) ? '' : String(rnd(3)),
                      annotations: { [`k${rnd(5)}`]: rnd(3) ? String(i) : '' },
                    },
                    identityProviderId: rec?.identityProviderId ?? '',
                  },
                  updateMask: { paths: ['local_metadata.annotations'] },
                },
                rec?.identityProviderId ?? '',
              );
              return tx.append(decideUpdatePartyDetails({ identityProviderExists: true, record: rec }, req).events);
            }
            if (kind === 3)
              return tx.append(
                decideCreateIdentityProvider(idpState, {
                  identityProviderId: idpId,
                  issuer: `https://${idpId}`,
                  jwksUrl: `https://${idpId}/jwks`,
                  audience: '',
                  isDeactivated: false,
                }),
              );
            if (kind === 4)
              return tx.append(
                decideUpdateIdentityProvider(
                  idpState,
                  {
                    identityProviderId: idpId,
                    issuer: '',
                    jwksUrl: '',
                    audience: `a${i}`,
                    isDeactivated: rnd(2) === 0,
                  },
                  ['audience', 'is_deactivated'],
                ).events,
              );
            return tx.append(decideDeleteIdentityProvider(idpState, idpId));
          })
          .catch(() => undefined),
      );
    }
    await Promise.all(ops);
    const live = await dumpProjections(database.db);
    expect(live.party_details.length).toBeGreaterThan(5);
    expect(live.ledger_updates.length).toBe(live.party_details.length);
    expect(live.party_details.some((r) => Number((r as { resource_version: number }).resource_version) > 1)).toBe(true);
    await rebuildProjections(database.db, { chunk: 53 });
    expect(await dumpProjections(database.db)).toEqual(live);
  });
});
