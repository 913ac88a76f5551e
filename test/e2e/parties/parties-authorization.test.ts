import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type KeyLike } from 'jose';
import { PARTICIPANT_AUDIENCE_PREFIX } from '@ledgerline/auth';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import { waitFor } from '../../support/wait-for';

/**
 * Identity providers end to end: a JWKS served by this test on 127.0.0.1, IDP-issued RS256 tokens (with key rotation),
 * and the authorization matrix of every party and IDP endpoint (admin, IDP admin of the right/wrong provider, party user,
 * stranger, no token).
 */
interface Signer {
  kid: string;
  privateKey: KeyLike;
  jwk: JWK;
}

const jwks: Record<string, Signer[]> = { a: [], b: [] };
/** How often each provider's JWKS was fetched. */
const jwksFetches: Record<string, number> = { a: 0, b: 0 };
let server: http.Server;
let base: string;
let ledger: TestLedger;

async function newSigner(kid: string): Promise<Signer> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

const issuer = (idp: 'a' | 'b') => `${base}/${idp}`;

async function idpToken(idp: 'a' | 'b', sub: string, opts: { signer?: Signer; aud?: string | string[] } = {}) {
  const signer = opts.signer ?? jwks[idp][jwks[idp].length - 1];
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'RS256', kid: signer.kid })
    .setIssuer(issuer(idp))
    .setSubject(sub)
    .setAudience(opts.aud ?? `${PARTICIPANT_AUDIENCE_PREFIX}${ledger.participantId}`)
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .sign(signer.privateKey);
}

type Caller = 'admin' | 'idpAdminA' | 'idpAdminB' | 'partyUserA' | 'stranger' | 'none';
const CALLERS: Caller[] = ['admin', 'idpAdminA', 'idpAdminB', 'partyUserA', 'stranger', 'none'];

async function authHeader(who: Caller): Promise<Record<string, string>> {
  switch (who) {
    case 'admin':
      return { authorization: `Bearer ${await ledger.token()}` };
    case 'idpAdminA':
      return { authorization: `Bearer ${await idpToken('a', 'idp-admin-a')}` };
    case 'idpAdminB':
      return { authorization: `Bearer ${await idpToken('b', 'idp-admin-b')}` };
    case 'partyUserA':
      return { authorization: `Bearer ${await idpToken('a', 'party-user-a')}` };
    case 'stranger':
      return { authorization: `Bearer ${await idpToken('a', 'stranger-a')}` };
    case 'none':
      return {};
  }
}

const as = async (who: Caller, method: string, path: string, body?: unknown) =>
  ledger.call(method, path, body, { as: null, headers: await authHeader(who) });

let pA: string;
let pDefault: string;
let sync: string;

beforeAll(async () => {
  jwks.a.push(await newSigner('a-1'));
  jwks.b.push(await newSigner('b-1'));
  server = http.createServer((req, res) => {
    const m = /^\/(a|b)\/jwks$/.exec(req.url ?? '');
    if (!m) {
      res.writeHead(404).end();
      return;
    }
    jwksFetches[m[1]]++;
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ keys: jwks[m[1]].map((s) => s.jwk) }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  ledger = await startTestLedger();
  sync = ledger.runtime.identity.synchronizers[0].id;

  for (const idp of ['a', 'b'] as const) {
    const r = await ledger.call('POST', '/v2/idps', {
      identityProviderConfig: { identityProviderId: `idp-${idp}`, issuer: issuer(idp), jwksUrl: `${base}/${idp}/jwks` },
    });
    expect(r.status, r.text).toBe(200);
  }
  pA = (
    await ledger.call('POST', '/v2/parties', {
      partyIdHint: 'party-a',
      synchronizerId: sync,
      identityProviderId: 'idp-a',
    })
  ).json.partyDetails.party;
  pDefault = (await ledger.call('POST', '/v2/parties', { partyIdHint: 'party-default', synchronizerId: sync })).json
    .partyDetails.party;
  const users: Array<[string, string, unknown[]]> = [
    ['idp-admin-a', 'idp-a', [{ kind: { IdentityProviderAdmin: { value: {} } } }]],
    ['idp-admin-b', 'idp-b', [{ kind: { IdentityProviderAdmin: { value: {} } } }]],
    ['party-user-a', 'idp-a', [{ kind: { CanReadAs: { value: { party: pA } } } }]],
    ['stranger-a', 'idp-a', []],
  ];
  for (const [id, idp, rights] of users) {
    const r = await ledger.call('POST', '/v2/users', { user: { id, identityProviderId: idp }, rights });
    expect(r.status, r.text).toBe(200);
  }
});

afterAll(async () => {
  await ledger?.close();
  await new Promise((r) => server?.close(r));
});

describe('IDP-issued tokens', () => {
  it('a token whose iss names a provider is verified with its JWKS and binds the caller to it', async () => {
    const r = await as('idpAdminA', 'GET', '/v2/authenticated-user');
    expect(r.status).toBe(200);
    expect(r.json.user).toMatchObject({ id: 'idp-admin-a', identityProviderId: 'idp-a' });
  });

  it('a token signed by another key, or for a user of another provider, is refused', async () => {
    const rogue = await newSigner('a-1');
    const forged = await idpToken('a', 'idp-admin-a', { signer: rogue });
    expect(
      (
        await ledger.call('GET', '/v2/parties/participant-id', undefined, {
          as: null,
          headers: { authorization: `Bearer ${forged}` },
        })
      ).status,
    ).toBe(401);
    // idp-admin-b presented by provider a: the user is not in that provider → invalid token (403)
    const cross = await idpToken('a', 'idp-admin-b');
    const r = await ledger.call('GET', '/v2/parties/participant-id', undefined, {
      as: null,
      headers: { authorization: `Bearer ${cross}` },
    });
    expect([r.status, r.json.context]).toEqual([403, { ledger_api_error: 'invalid token' }]);
    // an HS256 participant token for a user of idp-a does not bind it to idp-a
    expect((await ledger.call('GET', '/v2/parties/participant-id', undefined, { as: 'idp-admin-a' })).status).toBe(403);
  });

  it('key rotation: a token with a new kid is accepted once the provider publishes the key; the old key keeps working while published', async () => {
    const next = await newSigner('a-2');
    const early = await idpToken('a', 'idp-admin-a', { signer: next });
    const status = async (token: string) =>
      (
        await ledger.call('GET', '/v2/parties/participant-id', undefined, {
          as: null,
          headers: { authorization: `Bearer ${token}` },
        })
      ).status;
    // jose refetches a JWKS for an unknown kid at most once a second: refused until a refetch, and after it (unpublished).
    const fetched = jwksFetches.a;
    await waitFor(
      async () => {
        expect(await status(early)).toBe(401);
        return jwksFetches.a > fetched;
      },
      { intervalMs: 100, message: "a refetch of provider a's JWKS for the new kid" },
    );
    expect(await status(early)).toBe(401);
    jwks.a.push(next);
    const rotated = await idpToken('a', 'idp-admin-a', { signer: next });
    // Accepted once a refetch (after the cooldown) finds the published key.
    await waitFor(async () => (await status(rotated)) === 200, {
      intervalMs: 100,
      message: 'the rotated key accepted',
    });
    const old = await idpToken('a', 'idp-admin-a', { signer: jwks.a[0] });
    expect(
      (
        await ledger.call('GET', '/v2/parties/participant-id', undefined, {
          as: null,
          headers: { authorization: `Bearer ${old}` },
        })
      ).status,
    ).toBe(200);
  });

  it('audience and deactivation of a provider apply to its tokens', async () => {
    const set = (patch: Record<string, unknown>, paths: string[]) =>
      ledger.call('PATCH', '/v2/idps/idp-b', {
        identityProviderConfig: { identityProviderId: 'idp-b', ...patch },
        updateMask: { paths },
      });
    expect(
      (await set({ audience: 'https://ledger.example/aud' }, ['audience'])).json.identityProviderConfig.audience,
    ).toBe('https://ledger.example/aud');
    const noAud = await idpToken('b', 'idp-admin-b');
    expect(
      (
        await ledger.call('GET', '/v2/parties/participant-id', undefined, {
          as: null,
          headers: { authorization: `Bearer ${noAud}` },
        })
      ).status,
    ).toBe(401);
    const withAud = await idpToken('b', 'idp-admin-b', { aud: ['https://ledger.example/aud'] });
    expect(
      (
        await ledger.call('GET', '/v2/parties/participant-id', undefined, {
          as: null,
          headers: { authorization: `Bearer ${withAud}` },
        })
      ).status,
    ).toBe(200);
    expect((await set({ isDeactivated: true }, ['is_deactivated'])).status).toBe(200);
    expect(
      (
        await ledger.call('GET', '/v2/parties/participant-id', undefined, {
          as: null,
          headers: { authorization: `Bearer ${withAud}` },
        })
      ).status,
    ).toBe(401);
    expect(
      (await set({ isDeactivated: false, audience: '' }, ['is_deactivated', 'audience'])).json.identityProviderConfig,
    ).toEqual({
      identityProviderId: 'idp-b',
      isDeactivated: false,
      issuer: issuer('b'),
      jwksUrl: `${base}/b/jwks`,
      audience: '',
    });
  });
});

describe('identity provider API', () => {
  it('create, get, list, update, delete with the reference errors', async () => {
    const cfg = {
      identityProviderId: 'idp-c',
      issuer: 'https://c.example',
      jwksUrl: 'https://c.example/jwks',
      audience: '',
      isDeactivated: false,
    };
    expect((await ledger.call('POST', '/v2/idps', { identityProviderConfig: cfg })).json).toEqual({
      identityProviderConfig: cfg,
    });
    expect((await ledger.call('GET', '/v2/idps/idp-c')).json).toEqual({ identityProviderConfig: cfg });
    expect(
      (await ledger.call('GET', '/v2/idps')).json.identityProviderConfigs.map(
        (c: { identityProviderId: string }) => c.identityProviderId,
      ),
    ).toEqual(['idp-a', 'idp-b', 'idp-c']);
    const dup = await ledger.call('POST', '/v2/idps', { identityProviderConfig: cfg });
    expect([dup.status, dup.json.code]).toEqual([409, 'IDP_CONFIG_ALREADY_EXISTS']);
    const sameIssuer = await ledger.call('POST', '/v2/idps', {
      identityProviderConfig: { ...cfg, identityProviderId: 'idp-d' },
    });
    expect([sameIssuer.status, sameIssuer.json.code]).toEqual([409, 'IDP_CONFIG_ISSUER_ALREADY_EXISTS']);
    const missing = await ledger.call('POST', '/v2/idps', {
      identityProviderConfig: { identityProviderId: 'idp-e', jwksUrl: 'https://e/jwks' },
    });
    expect([missing.status, missing.json.code, missing.json.context.field_name]).toEqual([
      400,
      'MISSING_FIELD',
      'issuer',
    ]);
    const badMask = await ledger.call('PATCH', '/v2/idps/idp-c', {
      identityProviderConfig: { identityProviderId: 'idp-c' },
      updateMask: { paths: ['jwksUrl'] },
    });
    expect([badMask.status, badMask.json.code]).toEqual([400, 'INVALID_IDENTITY_PROVIDER_UPDATE_REQUEST']);
    const upd = await ledger.call('PATCH', '/v2/idps/idp-c', {
      identityProviderConfig: { identityProviderId: 'idp-c', jwksUrl: 'https://c.example/v2/jwks' },
      updateMask: { paths: ['jwks_url'] },
    });
    expect(upd.json.identityProviderConfig.jwksUrl).toBe('https://c.example/v2/jwks');
    expect((await ledger.call('DELETE', '/v2/idps/idp-c')).json).toEqual({});
    const gone = await ledger.call('GET', '/v2/idps/idp-c');
    expect([gone.status, gone.json.code, gone.json.cause]).toEqual([
      404,
      'IDP_CONFIG_NOT_FOUND',
      'Getting identity provider config failed for unknown identity provider id="idp-c"',
    ]);
    expect((await ledger.call('DELETE', '/v2/idps/idp-c')).status).toBe(404);
  });

  it('PATCH /v2/users/{id}/identity-provider-id moves a user between providers', async () => {
    expect((await ledger.call('POST', '/v2/users', { user: { id: 'mover' } })).status).toBe(200);
    const move = (source: string, target: string) =>
      ledger.call('PATCH', '/v2/users/mover/identity-provider-id', {
        userId: 'mover',
        sourceIdentityProviderId: source,
        targetIdentityProviderId: target,
      });
    expect((await move('', 'idp-a')).json).toEqual({});
    expect((await ledger.call('GET', '/v2/users/mover?identity-provider-id=idp-a')).json.user.identityProviderId).toBe(
      'idp-a',
    );
    expect((await move('', 'idp-b')).json.code).toBe('USER_NOT_FOUND');
    expect((await move('idp-a', 'nope')).json.code).toBe('INVALID_ARGUMENT');
    expect((await move('idp-a', '')).status).toBe(200);
  });

  it('PATCH of a party in another provider: admin must name it; the default provider gets 403', async () => {
    const body = (idp: string) => ({
      partyDetails: { party: pA, identityProviderId: idp, localMetadata: { annotations: { via: idp || 'default' } } },
      updateMask: { paths: ['local_metadata'] },
    });
    expect((await ledger.call('PATCH', `/v2/parties/${pA}`, body(''))).status).toBe(403);
    const r = await ledger.call('PATCH', `/v2/parties/${pA}`, body('idp-a'));
    expect(r.status).toBe(200);
    expect(r.json.partyDetails.identityProviderId).toBe('idp-a');
  });

  it('GET blinds parties of other providers', async () => {
    const byAdmin = await ledger.call('GET', `/v2/parties/${pA}`);
    expect(byAdmin.json.partyDetails[0]).toEqual({
      party: pA,
      isLocal: true,
      localMetadata: { resourceVersion: '', annotations: {} },
      identityProviderId: '',
    });
    const inA = await ledger.call('GET', `/v2/parties/${pA}?identity-provider-id=idp-a`);
    expect(inA.json.partyDetails[0].identityProviderId).toBe('idp-a');
    const byAdminB = await as('idpAdminB', 'GET', `/v2/parties/${pA}`);
    expect(byAdminB.json.partyDetails[0]).toEqual({
      party: pA,
      isLocal: false,
      localMetadata: { resourceVersion: '', annotations: {} },
      identityProviderId: '',
    });
    const list = await as('idpAdminA', 'GET', '/v2/parties');
    const seen = Object.fromEntries(
      list.json.partyDetails.map((d: { party: string; identityProviderId: string; isLocal: boolean }) => [
        d.party,
        [d.identityProviderId, d.isLocal],
      ]),
    );
    expect(seen[pA]).toEqual(['idp-a', true]);
    expect(seen[pDefault]).toEqual(['', false]);
  });
});

describe('authorization matrix (Canton PartyManagementServiceAuthorization)', () => {
  type Expect = Record<Caller, number>;
  const row = (
    admin: number,
    idpAdminA: number,
    idpAdminB: number,
    partyUserA: number,
    stranger: number,
    none = 401,
  ): Expect => ({
    admin,
    idpAdminA,
    idpAdminB,
    partyUserA,
    stranger,
    none,
  });
  let n = 0;
  const patchBody = (idp: string) => () => ({
    partyDetails: { party: pA, identityProviderId: idp },
    updateMask: { paths: ['local_metadata'] },
  });
  const cases: Array<{ name: string; method: string; path: () => string; body?: () => unknown; expect: Expect }> = [
    {
      name: 'POST /v2/parties (idp-a)',
      method: 'POST',
      path: () => '/v2/parties',
      body: () => ({ partyIdHint: `m${n++}`, synchronizerId: sync, identityProviderId: 'idp-a' }),
      expect: row(200, 200, 403, 403, 403),
    },
    {
      name: 'POST /v2/parties (own provider implied)',
      method: 'POST',
      path: () => '/v2/parties',
      body: () => ({ partyIdHint: `m${n++}`, synchronizerId: sync }),
      expect: row(200, 200, 200, 403, 403),
    },
    {
      name: 'POST /v2/parties for a user (not in the caller provider → USER_NOT_FOUND; self-allocation quota 0)',
      method: 'POST',
      path: () => '/v2/parties',
      body: () => ({ partyIdHint: `m${n++}`, synchronizerId: sync, userId: 'stranger-a' }),
      expect: row(404, 200, 404, 403, 403),
    },
    {
      name: 'GET /v2/parties?identity-provider-id=idp-a',
      method: 'GET',
      path: () => '/v2/parties?identity-provider-id=idp-a',
      expect: row(200, 200, 403, 403, 403),
    },
    {
      name: 'GET /v2/parties/{pA}',
      method: 'GET',
      path: () => `/v2/parties/${pA}`,
      expect: row(200, 200, 200, 200, 403),
    },
    {
      name: 'GET /v2/parties/{pA}?identity-provider-id=idp-a',
      method: 'GET',
      path: () => `/v2/parties/${pA}?identity-provider-id=idp-a`,
      expect: row(200, 200, 403, 200, 403),
    },
    {
      name: 'GET /v2/parties/{pDefault}',
      method: 'GET',
      path: () => `/v2/parties/${pDefault}`,
      expect: row(200, 200, 200, 403, 403),
    },
    {
      name: 'GET /v2/parties/participant-id',
      method: 'GET',
      path: () => '/v2/parties/participant-id',
      expect: row(200, 200, 200, 200, 200),
    },
    {
      name: 'PATCH /v2/parties/{pA} (idp-a)',
      method: 'PATCH',
      path: () => `/v2/parties/${pA}`,
      body: patchBody('idp-a'),
      expect: row(200, 200, 403, 403, 403),
    },
    {
      name: 'PATCH /v2/parties/{pA} (implied provider)',
      method: 'PATCH',
      path: () => `/v2/parties/${pA}`,
      body: patchBody(''),
      expect: row(403, 200, 403, 403, 403),
    },
    {
      name: 'POST /v2/idps',
      method: 'POST',
      path: () => '/v2/idps',
      body: () => ({
        identityProviderConfig: { identityProviderId: `x${n}`, issuer: `https://x${n++}`, jwksUrl: 'https://x/jwks' },
      }),
      expect: row(200, 403, 403, 403, 403),
    },
    { name: 'GET /v2/idps', method: 'GET', path: () => '/v2/idps', expect: row(200, 403, 403, 403, 403) },
    { name: 'GET /v2/idps/idp-a', method: 'GET', path: () => '/v2/idps/idp-a', expect: row(200, 403, 403, 403, 403) },
    {
      name: 'PATCH /v2/idps/idp-a',
      method: 'PATCH',
      path: () => '/v2/idps/idp-a',
      body: () => ({
        identityProviderConfig: { identityProviderId: 'idp-a' },
        updateMask: { paths: ['identity_provider_id'] },
      }),
      expect: row(200, 403, 403, 403, 403),
    },
    {
      name: 'DELETE /v2/idps/{unknown}',
      method: 'DELETE',
      path: () => '/v2/idps/never',
      expect: row(404, 403, 403, 403, 403),
    },
    {
      name: 'PATCH /v2/users/{id}/identity-provider-id',
      method: 'PATCH',
      path: () => '/v2/users/stranger-a/identity-provider-id',
      body: () => ({ userId: 'stranger-a', sourceIdentityProviderId: 'idp-a', targetIdentityProviderId: 'idp-a' }),
      expect: row(200, 403, 403, 403, 403),
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const got: Partial<Expect> = {};
      for (const who of CALLERS) {
        const r = await as(who, c.method, c.path(), c.body?.());
        got[who] = r.status;
        if (r.status === 401 || r.status === 403) expect(r.json.code, `${c.name} as ${who}`).toBe('NA');
      }
      expect(got).toEqual(c.expect);
    });
  }
});

describe('rights an identity-provider admin may hand out (Canton needsParticipantAdmin, verifyPartiesExistInIdp)', () => {
  const right = (kind: string, party?: string) => ({
    kind: { [kind]: { value: party === undefined ? {} : { party } } },
  });

  it('grant: party rights only for parties of its own provider; *AnyParty and ParticipantAdmin need a participant admin', async () => {
    expect(
      (await ledger.call('POST', '/v2/users', { user: { id: 'grantee-a', identityProviderId: 'idp-a' } })).status,
    ).toBe(200);
    const grant = (who: Caller, rights: unknown[]) =>
      as(who, 'POST', '/v2/users/grantee-a/rights', { userId: 'grantee-a', rights, identityProviderId: '' });
    for (const kind of ['ParticipantAdmin', 'CanActAsAnyParty', 'CanReadAsAnyParty', 'CanExecuteAsAnyParty']) {
      const r = await grant('idpAdminA', [right(kind)]);
      expect([r.status, r.json.code], kind).toEqual([403, 'NA']);
    }
    for (const kind of ['CanActAs', 'CanReadAs', 'CanExecuteAs']) {
      const r = await grant('idpAdminA', [right(kind, pDefault), right(kind, pA)]);
      expect([r.status, r.json.code], kind).toEqual([404, 'UNKNOWN_RESOURCE']);
      expect(r.json.cause).toBe(
        `The submitted request refers to a non-existing PARTIES: Provided parties have not been found in identity_provider_id=\`idp-a\`: [${pDefault}].`,
      );
      expect(r.json.resources).toEqual([['PARTIES', pDefault]]);
    }
    const unknown = `nobody::1220${'ab'.repeat(32)}`;
    expect((await grant('idpAdminA', [right('CanReadAs', unknown)])).json.code).toBe('UNKNOWN_RESOURCE');
    expect((await ledger.call('GET', '/v2/users/grantee-a/rights?identity-provider-id=idp-a')).json.rights).toEqual([]);

    const ok = await grant('idpAdminA', [right('CanActAs', pA), right('IdentityProviderAdmin')]);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.newlyGrantedRights).toHaveLength(2);
    // The participant admin may name any party, known or not (Canton skips the check for it).
    expect((await grant('admin', [right('CanActAs', pDefault), right('CanActAsAnyParty')])).status).toBe(200);
    // Revoking follows the same rules.
    const revoke = (who: Caller, rights: unknown[]) =>
      as(who, 'PATCH', '/v2/users/grantee-a/rights', { userId: 'grantee-a', rights, identityProviderId: '' });
    expect((await revoke('idpAdminA', [right('CanActAsAnyParty')])).status).toBe(403);
    expect((await revoke('idpAdminA', [right('CanActAs', pDefault)])).json.code).toBe('UNKNOWN_RESOURCE');
    expect((await revoke('idpAdminA', [right('IdentityProviderAdmin')])).status).toBe(200);
  });

  it('an identity-provider admin cannot make itself act as a party of another provider, nor as any party', async () => {
    const self = (rights: unknown[]) =>
      as('idpAdminA', 'POST', '/v2/users/idp-admin-a/rights', { userId: 'idp-admin-a', rights });
    expect((await self([right('CanActAs', pDefault)])).status).toBe(404);
    expect((await self([right('CanActAsAnyParty')])).status).toBe(403);
    expect((await self([right('CanReadAsAnyParty')])).status).toBe(403);
    const rights = (await ledger.call('GET', '/v2/users/idp-admin-a/rights?identity-provider-id=idp-a')).json.rights;
    expect(rights).toEqual([right('IdentityProviderAdmin')]);
  });

  it('create user: the same rules for the rights given at creation', async () => {
    const create = (who: Caller, id: string, rights: unknown[]) =>
      as(who, 'POST', '/v2/users', { user: { id, identityProviderId: 'idp-a' }, rights });
    expect((await create('idpAdminA', 'born-any', [right('CanActAsAnyParty')])).status).toBe(403);
    const foreign = await create('idpAdminA', 'born-foreign', [right('CanReadAs', pDefault)]);
    expect([foreign.status, foreign.json.code]).toEqual([404, 'UNKNOWN_RESOURCE']);
    for (const id of ['born-any', 'born-foreign'])
      expect((await ledger.call('GET', `/v2/users/${id}?identity-provider-id=idp-a`)).status).toBe(404);
    const ok = await create('idpAdminA', 'born-ok', [right('CanActAs', pA), right('IdentityProviderAdmin')]);
    expect(ok.status, ok.text).toBe(200);
    expect(
      (await create('admin', 'born-by-admin', [right('CanActAs', pDefault), right('ParticipantAdmin')])).status,
    ).toBe(200);
  });
});
