import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jwkThumbprint } from '@ledgerline/canton';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import { onboardExternalParty, type TestKey } from '../../support/external-party';

/**
 * GET /v2/jose/jwks/synchronizer/{synchronizer}/party/{party} (Canton 3.5.10's JoseService): an external party's signing
 * keys as a JWKS (JceJwks.scala), for any authenticated caller; the checks in ApiJoseService's order.
 */
let ledger: TestLedger;
let syncs: string[];
let ext: { partyId: string; key: TestKey };
let local: string;
const jwks = (sync: string, party: string, as: string | null = 'someone') =>
  ledger.call(
    'GET',
    `/v2/jose/jwks/synchronizer/${encodeURIComponent(sync)}/party/${encodeURIComponent(party)}`,
    undefined,
    { as },
  );

beforeAll(async () => {
  ledger = await startTestLedger({ LEDGER_SYNCHRONIZERS: 'global,secondary' });
  syncs = (await ledger.call('GET', '/v2/state/connected-synchronizers')).json.connectedSynchronizers.map(
    (s: any) => s.synchronizerId,
  );
  ext = await onboardExternalParty(ledger, 'jwks-ext');
  local = (await ledger.call('POST', '/v2/parties', { partyIdHint: 'jwks-local', synchronizerId: syncs[0] })).json
    .partyDetails.party;
  await ledger.call('POST', '/v2/users', { user: { id: 'someone' } });
});
afterAll(async () => {
  await ledger?.close();
});

describe('JOSE: an external party’s keys as a JWKS', () => {
  it('an external party on its synchronizer: its Ed25519 key as an OKP JWK with its thumbprint, for a user with no rights', async () => {
    const r = await jwks(syncs[0], ext.partyId);
    expect(r.status, r.text).toBe(200);
    const x = ext.key.rawPublicKey.toString('base64url');
    expect(r.json).toEqual({
      keys: [
        {
          kty: 'OKP',
          crv: 'Ed25519',
          x,
          alg: 'EdDSA',
          use: 'sig',
          kid: jwkThumbprint({ crv: 'Ed25519', kty: 'OKP', x }),
        },
      ],
    });
  });

  it('a local party, an unknown party, another synchronizer → PARTY_SIGNING_KEYS_NOT_FOUND; an unknown synchronizer → SYNCHRONIZER_NOT_FOUND', async () => {
    expect(syncs.length).toBeGreaterThanOrEqual(2);
    for (const [sync, party] of [
      [syncs[0], local],
      [syncs[0], 'ghost::1220' + '11'.repeat(32)],
      [syncs[1], ext.partyId],
    ]) {
      const r = await jwks(sync, party);
      expect([r.status, r.json.code, r.json.cause], party).toEqual([
        404,
        'PARTY_SIGNING_KEYS_NOT_FOUND',
        'Could not find signing keys for the requested party.',
      ]);
      expect(r.json.resources).toEqual([['PARTY', party]]);
    }
    const unknown = 'nowhere::1220' + '22'.repeat(32);
    const r = await jwks(unknown, ext.partyId);
    expect([r.status, r.json.code, r.json.cause, r.json.resources]).toEqual([
      404,
      'SYNCHRONIZER_NOT_FOUND',
      'Could not find synchronizer.',
      [['SYNCHRONIZER_ID', unknown]],
    ]);
  });

  it('malformed ids → INVALID_ARGUMENT (the synchronizer first); no token → 401', async () => {
    let r = await jwks('no-namespace', 'neither');
    expect([r.status, r.json.code, r.json.cause]).toEqual([
      400,
      'INVALID_ARGUMENT',
      'The submitted request has invalid arguments: Unable to convert field `synchronizerId`: Invalid unique identifier `no-namespace` with missing namespace.',
    ]);
    r = await jwks(syncs[0], '::1220' + '11'.repeat(32));
    expect([r.status, r.json.code]).toEqual([400, 'INVALID_ARGUMENT']);
    expect(r.json.cause).toContain('Unable to convert field `partyId`: Invalid unique identifier `::1220');
    expect((await jwks(syncs[0], ext.partyId, null)).status).toBe(401);
  });
});
