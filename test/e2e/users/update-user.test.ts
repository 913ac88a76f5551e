import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAIMS_CACHE_TTL_MS } from '@ledgerline/server/infrastructure/user-claims.resolver';
import { startTestLedger, TEST_JWT_SECRET, type TestLedger } from '../../support/ledger';
import { startServerProcess, type ServerProcess } from '../../support/server-process';

/**
 * PATCH /v2/users/{user-id}: the field mask and resourceVersion rules it shares with PATCH of a party, the modifiable
 * fields, errors, rights, concurrent updates, and deactivation taking effect on every instance.
 */
let ledger: TestLedger;
/** Another instance of the service on the same database (its own process, as in a deployment). */
let second: ServerProcess;

beforeAll(async () => {
  ledger = await startTestLedger();
  second = await startServerProcess({ DATABASE_URL: ledger.databaseUrl, LEDGER_JWT_SECRET: TEST_JWT_SECRET });
  expect(
    (
      await ledger.call('POST', '/v2/users', {
        user: { id: 'idp-admin' },
        rights: [{ kind: { IdentityProviderAdmin: { value: {} } } }],
      })
    ).status,
  ).toBe(200);
  expect((await ledger.call('POST', '/v2/users', { user: { id: 'plain' } })).status).toBe(200);
  const idp = await ledger.call('POST', '/v2/idps', {
    identityProviderConfig: {
      identityProviderId: 'idp-x',
      issuer: 'https://idp-x.example',
      jwksUrl: 'http://127.0.0.1:9/jwks',
    },
  });
  expect(idp.status, idp.text).toBe(200);
  expect(
    (await ledger.call('POST', '/v2/users', { user: { id: 'in-idp-x', identityProviderId: 'idp-x' } })).status,
  ).toBe(200);
}, 30_000);
afterAll(async () => {
  await second?.stop();
  await ledger?.close();
}, 30_000);

const patch = (id: string, body: unknown, as?: string | null) =>
  ledger.call('PATCH', `/v2/users/${encodeURIComponent(id)}`, body, { as });

async function newUser(id: string, extra: Record<string, unknown> = {}) {
  const r = await ledger.call('POST', '/v2/users', { user: { id, ...extra } });
  expect(r.status, r.text).toBe(200);
  return r.json.user;
}

describe('PATCH /v2/users/{user-id}', () => {
  it('applies the mask: exact paths set, prefixes set non-defaults, annotations merge, every update bumps the version', async () => {
    await newUser('u-mask', { primaryParty: 'p0', metadata: { annotations: { k1: 'v1', k2: 'v2', k3: 'v3' } } });
    const r = await patch('u-mask', {
      user: {
        id: 'u-mask',
        primaryParty: 'p1',
        isDeactivated: false,
        metadata: { annotations: { k1: 'v1a', k3: '', k4: 'v4', k5: '' } },
      },
      updateMask: { paths: ['is_deactivated', 'primary_party', 'metadata'] },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.user).toEqual({
      id: 'u-mask',
      primaryParty: 'p1',
      isDeactivated: false,
      metadata: { resourceVersion: '1', annotations: { k1: 'v1a', k2: 'v2', k4: 'v4' } },
      identityProviderId: '',
      primaryPartyAuthentication: false,
    });
    // Fields the mask does not name are ignored whatever the body says.
    const ignored = await patch('u-mask', {
      user: { id: 'u-mask', primaryParty: 'other', primaryPartyAuthentication: true },
      updateMask: { paths: ['metadata.annotations'] },
    });
    expect(ignored.json.user).toMatchObject({
      primaryParty: 'p1',
      primaryPartyAuthentication: false,
      metadata: { resourceVersion: '2' },
    });
    // A prefix does not reset to defaults; the exact path does.
    const viaPrefix = await patch('u-mask', {
      user: { id: 'u-mask', primaryParty: '' },
      updateMask: { paths: ['metadata'] },
    });
    expect(viaPrefix.json.user.primaryParty).toBe('p1');
    const exact = await patch('u-mask', {
      user: { id: 'u-mask', primaryParty: '', primaryPartyAuthentication: true },
      updateMask: { paths: ['primary_party', 'primary_party_authentication'] },
    });
    expect(exact.json.user).toMatchObject({
      primaryParty: '',
      primaryPartyAuthentication: true,
      metadata: { resourceVersion: '4' },
    });
    // id, identity_provider_id and metadata.resource_version are accepted and change nothing.
    const noop = await patch('u-mask', {
      user: { id: 'u-mask' },
      updateMask: { paths: ['id', 'identity_provider_id', 'metadata.resource_version'] },
    });
    expect(noop.status, noop.text).toBe(200);
    expect(noop.json.user.metadata.resourceVersion).toBe('5');
    expect((await ledger.call('GET', '/v2/users/u-mask')).json.user).toEqual(noop.json.user);
  });

  it('checks the resource version when one is given', async () => {
    await newUser('u-version');
    const ok = await patch('u-version', {
      user: { id: 'u-version', primaryParty: 'a', metadata: { resourceVersion: '0' } },
      updateMask: { paths: ['primary_party'] },
    });
    expect(ok.json.user.metadata.resourceVersion).toBe('1');
    const stale = await patch('u-version', {
      user: { id: 'u-version', primaryParty: 'b', metadata: { resourceVersion: '0' } },
      updateMask: { paths: ['primary_party'] },
    });
    expect(stale.status).toBe(409);
    expect(stale.json).toMatchObject({
      code: 'CONCURRENT_USER_UPDATE_DETECTED',
      errorCategory: 2,
      cause: "Update operation for user 'u-version' failed due to a concurrent update to the same user",
      resources: [['USER', 'u-version']],
    });
    const bad = await patch('u-version', {
      user: { id: 'u-version', metadata: { resourceVersion: 'abc' } },
      updateMask: { paths: ['primary_party'] },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe('INVALID_FIELD');
    expect(bad.json.cause).toContain('user.metadata.resource_version: Invalid resource version number');
    expect((await ledger.call('GET', '/v2/users/u-version')).json.user.primaryParty).toBe('a');
  });

  it('of concurrent updates naming the same version, exactly one wins', async () => {
    await newUser('u-race');
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        patch('u-race', {
          user: { id: 'u-race', primaryParty: `p${i}`, metadata: { resourceVersion: '0' } },
          updateMask: { paths: ['primary_party'] },
        }),
      ),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409 && a.json.code === 'CONCURRENT_USER_UPDATE_DETECTED')).toHaveLength(
      9,
    );
    const winner = answers.find((a) => a.status === 200)!.json.user.primaryParty;
    expect((await ledger.call('GET', '/v2/users/u-race')).json.user).toMatchObject({
      primaryParty: winner,
      metadata: { resourceVersion: '1' },
    });
  });

  it('refuses bad masks (before looking the user up), bad bodies and unknown users', async () => {
    await newUser('u-errors');
    const masks: Array<[string[], string]> = [
      [[], 'The update mask contains no entries'],
      [['primaryParty'], "The update path: 'primaryParty' points to an unknown field."],
      [['metadata.nope'], "The update path: 'metadata.nope' points to an unknown field."],
      [['primary_party', 'primary_party'], "The update path: 'primary_party' is duplicated."],
    ];
    for (const [paths, reason] of masks) {
      for (const id of ['u-errors', 'nobody']) {
        const r = await patch(id, { user: { id }, updateMask: { paths } });
        expect(r.status, JSON.stringify(paths)).toBe(400);
        expect(r.json).toMatchObject({
          code: 'INVALID_USER_UPDATE_REQUEST',
          cause: `Update operation for user id '${id}' failed due to: ${reason}`,
          resources: [['USER', id]],
        });
      }
    }
    const missingMask = await patch('u-errors', { user: { id: 'u-errors' } });
    expect(missingMask.json).toMatchObject({ code: 'MISSING_FIELD', context: { field_name: 'update_mask' } });
    const mismatch = await patch('u-errors', {
      user: { id: 'someone-else' },
      updateMask: { paths: ['primary_party'] },
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.json.code).toBe('INVALID_ARGUMENT');
    expect(mismatch.json.cause).toContain('u-errors does not match user in body: Some(someone-else)');
    const noUser = await patch('u-errors', { updateMask: { paths: ['primary_party'] } });
    expect(noUser.json.cause).toContain('does not match user in body: None');
    const badParty = await patch('u-errors', {
      user: { id: 'u-errors', primaryParty: 'not a party!' },
      updateMask: { paths: ['primary_party'] },
    });
    expect(badParty.json.code).toBe('INVALID_ARGUMENT');
    const badAnnotation = await patch('u-errors', {
      user: { id: 'u-errors', metadata: { annotations: { 'bad key!': 'v' } } },
      updateMask: { paths: ['metadata.annotations'] },
    });
    expect(badAnnotation.status).toBe(400);
    const tooBig = await patch('u-errors', {
      user: { id: 'u-errors', metadata: { annotations: { k: 'x'.repeat(257 * 1024) } } },
      updateMask: { paths: ['metadata.annotations'] },
    });
    expect(tooBig.status).toBe(400);
    const unknown = await patch('nobody', {
      user: { id: 'nobody', primaryParty: 'p' },
      updateMask: { paths: ['primary_party'] },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({
      code: 'USER_NOT_FOUND',
      cause: 'updating user failed for unknown user "nobody"',
      resources: [['USER', 'nobody']],
    });
    const unknownIdp = await patch('u-errors', {
      user: { id: 'u-errors', identityProviderId: 'no-such-idp' },
      updateMask: { paths: ['primary_party'] },
    });
    expect(unknownIdp.json.code).toBe('INVALID_ARGUMENT');
    expect((await ledger.call('GET', '/v2/users/u-errors')).json.user.metadata.resourceVersion).toBe('0');
  });

  it('needs ParticipantAdmin or the identity provider admin of the user', async () => {
    await newUser('u-rights');
    const body = { user: { id: 'u-rights', primaryParty: 'x' }, updateMask: { paths: ['primary_party'] } };
    expect((await patch('u-rights', body, null)).status).toBe(401);
    const plain = await patch(
      'plain',
      { user: { id: 'plain', primaryParty: 'x' }, updateMask: { paths: ['primary_party'] } },
      'plain',
    );
    expect(plain.status).toBe(403); // not even itself
    expect(plain.json.code).toBe('NA');
    expect((await patch('u-rights', body, 'idp-admin')).status).toBe(200);
    // A user of another provider: 403 for the default provider's admin, whether the body names the provider or not.
    const other = { user: { id: 'in-idp-x', primaryParty: 'x' }, updateMask: { paths: ['primary_party'] } };
    expect((await patch('in-idp-x', other, 'idp-admin')).status).toBe(403);
    expect(
      (await patch('in-idp-x', { ...other, user: { ...other.user, identityProviderId: 'idp-x' } }, 'idp-admin')).status,
    ).toBe(403);
    // The participant admin names the user's provider.
    expect((await patch('in-idp-x', other)).status).toBe(403);
    expect((await patch('in-idp-x', { ...other, user: { ...other.user, identityProviderId: 'idp-x' } })).status).toBe(
      200,
    );
  });

  it('refuses self-deactivation', async () => {
    const r = await patch(
      'idp-admin',
      { user: { id: 'idp-admin', isDeactivated: true }, updateMask: { paths: ['is_deactivated'] } },
      'idp-admin',
    );
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(r.json.cause).toContain('Requesting user cannot self-deactivate');
  });

  it("deactivation refuses the user's tokens on every instance within the claims cache's bound; reactivation restores", async () => {
    await newUser('u-active');
    const token = await ledger.token('u-active');
    const asUser = (url: string) =>
      fetch(`${url}/v2/authenticated-user`, { headers: { authorization: `Bearer ${token}` } });
    expect((await asUser(ledger.url)).status).toBe(200);
    expect((await asUser(second.url)).status).toBe(200); // cached on the second instance now
    expect(
      (
        await patch('u-active', {
          user: { id: 'u-active', isDeactivated: true },
          updateMask: { paths: ['is_deactivated'] },
        })
      ).json.user.isDeactivated,
    ).toBe(true);
    const here = await asUser(ledger.url);
    expect(here.status).toBe(403);
    expect(((await here.json()) as { context: unknown }).context).toEqual({ ledger_api_error: 'invalid token' });
    await new Promise((r) => setTimeout(r, CLAIMS_CACHE_TTL_MS + 250));
    expect((await asUser(second.url)).status).toBe(403);
    await patch('u-active', {
      user: { id: 'u-active', isDeactivated: false },
      updateMask: { paths: ['is_deactivated'] },
    });
    expect((await asUser(ledger.url)).status).toBe(200);
    await new Promise((r) => setTimeout(r, CLAIMS_CACHE_TTL_MS + 250));
    expect((await asUser(second.url)).status).toBe(200);
  });
});
