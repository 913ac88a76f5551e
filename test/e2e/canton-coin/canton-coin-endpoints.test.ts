import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestLedger, type TestLedger } from '../../support/ledger';

/**
 * The Splice endpoints of the Canton Coin profile when there is no Canton Coin to serve: with the profile off (the
 * default) every route answers 404 with Splice's `ErrorResponse`, and so does a profile that waits for `splice-amulet`
 * to be uploaded; a request without a valid token is refused as everywhere else in the API.
 */
const GETS = [
  '/api/validator/v0/validator-user',
  '/api/validator/v0/scan-proxy/dso-party-id',
  '/api/validator/v0/scan-proxy/amulet-rules',
  '/api/validator/v0/scan-proxy/open-and-issuing-mining-rounds',
  '/api/validator/v0/scan-proxy/transfer-preapprovals/by-party/alice%3A%3A1220abcd',
  '/api/validator/v0/scan-proxy/featured-apps/alice%3A%3A1220abcd',
  '/api/scan/v0/dso-party-id',
  '/api/scan/v0/transfer-preapprovals/by-party/alice%3A%3A1220abcd',
  '/api/scan/v0/featured-apps/alice%3A%3A1220abcd',
];
const POSTS = ['/api/scan/v0/amulet-rules', '/api/scan/v0/open-and-issuing-mining-rounds'];

describe('Canton Coin endpoints with the profile off', () => {
  let ledger: TestLedger;
  beforeAll(async () => {
    ledger = await startTestLedger();
  });
  afterAll(async () => {
    await ledger?.close();
  });

  it('answers 404 with an ErrorResponse on every route', async () => {
    for (const path of GETS) {
      const r = await ledger.call('GET', path);
      expect([path, r.status, r.json]).toEqual([
        path,
        404,
        { error: 'The Canton Coin profile is off (LEDGER_CANTON_COIN=dev turns it on)' },
      ]);
    }
    for (const path of POSTS) {
      const r = await ledger.call('POST', path, {});
      expect([path, r.status, r.json.error]).toEqual([
        path,
        404,
        'The Canton Coin profile is off (LEDGER_CANTON_COIN=dev turns it on)',
      ]);
    }
  });

  it('refuses a request without a token (401) and a malformed POST body (400) as the rest of the API does', async () => {
    const anonymous = await ledger.call('GET', GETS[2], undefined, { as: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.json.code).toBeDefined();
    const bad = await ledger.call('POST', POSTS[1], { cached_open_mining_round_contract_ids: 'not-a-list' });
    // a body that does not decode: 400 text/plain, as every route of the JSON API answers it
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('cached_open_mining_round_contract_ids');
  });
});

describe('Canton Coin endpoints with the profile on and no splice-amulet stored', () => {
  let ledger: TestLedger;
  beforeAll(async () => {
    ledger = await startTestLedger({ LEDGER_CANTON_COIN: 'dev' });
  });
  afterAll(async () => {
    await ledger?.close();
  });

  it('answers 404 saying the profile waits for the package, and allocates no party', async () => {
    for (const path of GETS.slice(0, 4)) {
      const r = await ledger.call('GET', path);
      expect([path, r.status, r.json]).toEqual([
        path,
        404,
        { error: 'No AmuletRules: the Canton Coin profile sets up once splice-amulet is uploaded' },
      ]);
    }
    expect((await ledger.call('GET', '/v2/parties')).json.partyDetails).toEqual([]);
  });
});
