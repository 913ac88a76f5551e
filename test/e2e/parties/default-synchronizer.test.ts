import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildDar, lfArchive } from '../../support/dars';
import { startTestLedger, type TestLedger } from '../../support/ledger';

/**
 * A newcomer's first steps on the default configuration (no LEDGER_SYNCHRONIZERS): one synchronizer, as Canton's
 * sandbox, so neither a DAR upload nor a party allocation needs a synchronizer id. (A separate file: one ledger per
 * process, see parties-single-synchronizer.test.ts.)
 */
let ledger: TestLedger;
beforeAll(async () => {
  ledger = await startTestLedger();
});
afterAll(async () => {
  await ledger?.close();
});

it('starts with one synchronizer, alias global', async () => {
  const syncs = (await ledger.call('GET', '/v2/state/connected-synchronizers')).json.connectedSynchronizers;
  expect(syncs).toHaveLength(1);
  expect(syncs[0]).toMatchObject({ synchronizerAlias: 'global', permission: 'PARTICIPANT_PERMISSION_SUBMISSION' });
  expect(syncs[0].synchronizerId).toMatch(/^global::1220[0-9a-f]{64}$/);
});

it('uploads a DAR and allocates a party without naming a synchronizer', async () => {
  const dar = await buildDar({ main: lfArchive({ name: 'first-steps', version: '1.0.0' }) });
  const res = await fetch(`${ledger.url}/v2/dars`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await ledger.token()}` },
    body: dar,
  });
  expect(res.status, await res.clone().text()).toBe(200);
  const party = await ledger.call('POST', '/v2/parties', { partyIdHint: 'newcomer' });
  expect(party.status, party.text).toBe(200);
  expect(party.json.partyDetails.party).toMatch(/^newcomer::1220/);
});
