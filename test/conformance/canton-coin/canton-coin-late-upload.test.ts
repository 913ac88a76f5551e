import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithDars } from '../../support/conformance';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import { waitFor } from '../../support/wait-for';
import { AMULET_DAR, expectSpliceContract } from '../../support/canton-coin';

/**
 * The Canton Coin profile started before `splice-amulet` is stored: it sets up once a user uploads the DAR (the
 * automation notices the package at its next tick), without a restart.
 */
describeWithDars(
  'Canton Coin profile: splice-amulet uploaded after the start (LEDGERLINE_CONFORMANCE_DARS)',
  (darsRoot) => {
    let ledger: TestLedger;
    beforeAll(async () => {
      ledger = await startTestLedger({ LEDGER_CANTON_COIN: 'dev', LEDGER_CANTON_COIN_POLL_MS: '20' });
    });
    afterAll(async () => {
      await ledger?.close();
    });

    it('serves 404 until the upload, then AmuletRules and three open rounds', async () => {
      expect((await ledger.call('GET', '/api/validator/v0/scan-proxy/amulet-rules')).status).toBe(404);
      const sync = ledger.runtime.identity.defaultSynchronizer.id;
      const up = await fetch(`${ledger.url}/v2/dars?vetAllPackages=true&synchronizerId=${encodeURIComponent(sync)}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await ledger.token()}` },
        body: fs.readFileSync(path.join(darsRoot, AMULET_DAR)),
      });
      expect(up.status, await up.text()).toBe(200);
      const rules = await waitFor(
        async () => {
          const r = await ledger.call('GET', '/api/validator/v0/scan-proxy/amulet-rules');
          return r.status === 200 ? r.json : null;
        },
        { timeoutMs: 30_000, message: 'the profile to set up after the upload' },
      );
      expectSpliceContract(rules.amulet_rules.contract, 'Splice.AmuletRules:AmuletRules');
      const rounds = (await ledger.call('GET', '/api/validator/v0/scan-proxy/open-and-issuing-mining-rounds')).json;
      expect(rounds.open_mining_rounds.map((c: any) => c.contract.payload.round.number)).toEqual(['0', '1', '2']);
    });
  },
);
