import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestLedger, TEST_JWT_SECRET, type TestLedger } from '../../support/ledger';
import { buildDar, lfArchive } from '../../support/dars';

/**
 * The unmodified @canton-network/wallet-sdk 1.4.0 uploading a DAR: `ledger.dar.check` (GET /v2/packages) and
 * `ledger.dar.upload` (POST /v2/packages with the raw bytes and no Content-Type on the wire, `{}` expected back).
 */
let ledger: TestLedger;
let sdk: any;

beforeAll(async () => {
  ledger = await startTestLedger();
  const { SDK, CustomLogAdapter } = await import('@canton-network/wallet-sdk');
  sdk = await SDK.create({
    auth: {
      method: 'self_signed' as const,
      issuer: 'unsafe-auth',
      credentials: {
        clientId: ledger.config.adminUser,
        clientSecret: TEST_JWT_SECRET,
        audience: `https://daml.com/jwt/aud/participant/${ledger.participantId}`,
        scope: '',
      },
    },
    ledgerClientUrl: ledger.url,
    logAdapter: new CustomLogAdapter(() => undefined),
  });
}, 60_000);
afterAll(async () => {
  await ledger?.close();
});

describe('wallet-sdk 1.4.0 DARs', () => {
  it('checks, uploads (vetting on its default synchronizer), and skips a second upload', async () => {
    const dep = lfArchive({ name: 'wallet-dep', version: '1.0.0' });
    const main = lfArchive({ name: 'wallet-main', version: '1.0.0', minor: '2', imports: [dep.packageId] });
    const dar = await buildDar({ main, deps: [dep] });
    expect(await sdk.ledger.dar.check(main.packageId)).toBe(false);
    await sdk.ledger.dar.upload(dar, main.packageId);
    expect(await sdk.ledger.dar.check(main.packageId)).toBe(true);
    expect(await sdk.ledger.dar.check(dep.packageId)).toBe(true);
    const vetting = await ledger.call('POST', '/v2/package-vetting/list', {
      packageMetadataFilter: { packageNamePrefixes: ['wallet-'] },
    });
    expect(vetting.json.vettedPackages).toHaveLength(1);
    expect(vetting.json.vettedPackages[0].packages.map((p: { packageId: string }) => p.packageId).sort()).toEqual(
      [main.packageId, dep.packageId].sort(),
    );
    const events = await ledger.runtime.db.selectFrom('event_log').select('seq').execute();
    await sdk.ledger.dar.upload(dar, main.packageId); // already there: the SDK checks and skips
    expect(await ledger.runtime.db.selectFrom('event_log').select('seq').execute()).toEqual(events);
  }, 60_000);

  it('gets the reference error for a DAR the ledger refuses', async () => {
    const bad = lfArchive({ name: 'wallet-dev', version: '1.0.0', minor: 'dev' });
    const err = await sdk.ledger.dar.upload(await buildDar({ main: bad }), bad.packageId).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).not.toBeNull();
    expect(JSON.stringify(err)).toContain('ALLOWED_LANGUAGE_VERSIONS');
    expect(await sdk.ledger.dar.check(bad.packageId)).toBe(false);
  }, 60_000);
});
