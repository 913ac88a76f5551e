import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSynchronizer, ed25519Key, ed25519Signature, rawPublicKeyJs } from '../../support/external-party';
import { ledgerEnd, startTestLedger, type TestLedger } from '../../support/ledger';

/**
 * The self-allocation quota (LEDGER_MAX_SELF_ALLOCATED_PARTIES): a user without administrative rights may allocate
 * parties for itself, local or external, up to the quota; the quota is checked before anything costly about the request
 * (annotation keys, onboarding signatures).
 */
let ledger: TestLedger;
let synchronizer: string;

beforeAll(async () => {
  ledger = await startTestLedger({ LEDGER_MAX_SELF_ALLOCATED_PARTIES: '2' });
  synchronizer = await defaultSynchronizer(ledger);
  for (const id of ['self-ext', 'self-mixed', 'self-zero'])
    expect((await ledger.call('POST', '/v2/users', { user: { id } })).status).toBe(200);
});
afterAll(async () => {
  await ledger?.close();
});

async function allocateExternal(as: string, hint: string, sign = true) {
  const key = ed25519Key();
  const gen = await ledger.call(
    'POST',
    '/v2/parties/external/generate-topology',
    { synchronizer, partyHint: hint, publicKey: rawPublicKeyJs(key) },
    { as },
  );
  expect(gen.status, gen.text).toBe(200);
  const { topologyTransactions, multiHash, publicKeyFingerprint } = gen.json;
  const signature = ed25519Signature(
    key,
    sign ? Buffer.from(multiHash, 'base64') : Buffer.from('not the hash'),
    publicKeyFingerprint,
  );
  return ledger.call(
    'POST',
    '/v2/parties/external/allocate',
    {
      synchronizer,
      userId: as,
      onboardingTransactions: topologyTransactions.map((transaction: string) => ({ transaction })),
      multiHashSignatures: [signature],
    },
    { as },
  );
}

const partyRights = async (user: string) =>
  (
    (await ledger.call('GET', `/v2/users/${user}/rights`)).json.rights as Array<{ kind: Record<string, unknown> }>
  ).filter((r) => 'CanActAs' in r.kind);

describe('self-allocation quota', () => {
  it('external parties count: the third self-allocated external party is refused and changes nothing', async () => {
    for (const hint of ['ext-1', 'ext-2']) {
      const r = await allocateExternal('self-ext', hint);
      expect(r.status, r.text).toBe(200);
    }
    const end = await ledgerEnd(ledger);
    const third = await allocateExternal('self-ext', 'ext-3');
    expect([third.status, third.json.code]).toEqual([403, 'NA']);
    expect(await ledgerEnd(ledger)).toBe(end);
    expect(await partyRights('self-ext')).toHaveLength(2);
  });

  it('local and external allocations share one quota', async () => {
    expect(
      (
        await ledger.call(
          'POST',
          '/v2/parties',
          { partyIdHint: 'mixed-local', userId: 'self-mixed' },
          { as: 'self-mixed' },
        )
      ).status,
    ).toBe(200);
    expect((await allocateExternal('self-mixed', 'mixed-ext')).status).toBe(200);
    const local = await ledger.call(
      'POST',
      '/v2/parties',
      { partyIdHint: 'mixed-local-2', userId: 'self-mixed' },
      { as: 'self-mixed' },
    );
    expect([local.status, local.json.code]).toEqual([403, 'NA']);
    const external = await allocateExternal('self-mixed', 'mixed-ext-2');
    expect([external.status, external.json.code]).toEqual([403, 'NA']);
  });

  it('the quota is checked before the request content: annotation keys, onboarding signatures', async () => {
    // self-ext has used its quota. A bad annotation key or a bad signature would be 400; the quota answers first.
    const badKey = `${'aaa.'.repeat(40)}!/x`;
    const local = await ledger.call(
      'POST',
      '/v2/parties',
      { partyIdHint: 'late', userId: 'self-ext', localMetadata: { annotations: { [badKey]: 'v' } } },
      { as: 'self-ext' },
    );
    expect([local.status, local.json.code]).toEqual([403, 'NA']);
    const external = await allocateExternal('self-ext', 'late-ext', false);
    expect([external.status, external.json.code]).toEqual([403, 'NA']);
    // Within its quota, the same bad key is the reference's INVALID_ARGUMENT.
    const fresh = await ledger.call(
      'POST',
      '/v2/parties',
      { partyIdHint: 'fresh', userId: 'self-zero', localMetadata: { annotations: { [badKey]: 'v' } } },
      { as: 'self-zero' },
    );
    expect([fresh.status, fresh.json.code]).toEqual([400, 'INVALID_ARGUMENT']);
    expect(fresh.json.cause).toMatch(/Key prefix segment '.*' has invalid syntax/);
  });
});
