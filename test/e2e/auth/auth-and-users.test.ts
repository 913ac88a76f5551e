import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { PARTICIPANT_AUDIENCE_PREFIX } from '@ledgerline/auth';
import { startTestLedger, TEST_JWT_SECRET, type TestLedger } from '../../support/ledger';

let ledger: TestLedger;
beforeAll(async () => {
  ledger = await startTestLedger();
});
afterAll(async () => {
  await ledger?.close();
});

const redacted = (body: Record<string, unknown>) =>
  expect(body).toMatchObject({
    code: 'NA',
    errorCategory: -1,
    cause: 'A security-sensitive error has been received',
    resources: [],
  });

async function rawCall(path: string, authorization?: string) {
  const res = await fetch(ledger.url + path, { headers: authorization === undefined ? {} : { authorization } });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

const sign = (claims: Record<string, unknown>, secret = TEST_JWT_SECRET, exp = Math.floor(Date.now() / 1000) + 600) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime(exp).sign(Buffer.from(secret));

describe('authentication outcomes (Canton AuthServiceJWT, Authorizer)', () => {
  it('no header → 401 redacted', async () => {
    const r = await ledger.call('GET', '/v2/state/ledger-end', undefined, { as: null });
    expect(r.status).toBe(401);
    redacted(r.json);
    expect(r.json.grpcCodeValue).toBe(16);
  });

  it('an empty bearer → 400 text/plain', async () => {
    const r = await rawCall('/v2/state/ledger-end', 'Bearer ');
    expect(r.status).toBe(400);
    expect(r.type).toMatch(/^text\/plain/);
    expect(r.text).toMatch(/^Invalid value for: header Authorization/);
  });

  it('bad signature, expired, wrong audience, unknown scope → 401', async () => {
    const aud = `${PARTICIPANT_AUDIENCE_PREFIX}${ledger.participantId}`;
    for (const token of [
      await sign({ sub: 'participant_admin', aud }, 'another-secret-another-secret'),
      await sign({ sub: 'participant_admin', aud }, TEST_JWT_SECRET, Math.floor(Date.now() / 1000) - 60),
      await sign({ sub: 'participant_admin', aud: `${PARTICIPANT_AUDIENCE_PREFIX}someone-else::1220ab` }),
      await sign({ sub: 'participant_admin', scope: 'unknown_scope' }),
      'not.a.jwt',
    ]) {
      const r = await rawCall('/v2/state/ledger-end', `Bearer ${token}`);
      expect(r.status).toBe(401);
      redacted(JSON.parse(r.text));
    }
  });

  it('a verified token is remembered only until its exp; a tampered copy of a remembered token is still refused', async () => {
    const exp = Math.floor(Date.now() / 1000) + 2;
    const token = await sign({ sub: 'participant_admin', scope: 'daml_ledger_api' }, TEST_JWT_SECRET, exp);
    expect((await rawCall('/v2/state/ledger-end', `Bearer ${token}`)).status).toBe(200);
    expect((await rawCall('/v2/state/ledger-end', `Bearer ${token}`)).status).toBe(200); // remembered
    const [h, p] = token.split('.');
    expect((await rawCall('/v2/state/ledger-end', `Bearer ${h}.${p}.${'A'.repeat(43)}`)).status).toBe(401);
    await new Promise((r) => setTimeout(r, exp * 1000 - Date.now() + 50));
    expect((await rawCall('/v2/state/ledger-end', `Bearer ${token}`)).status).toBe(401);
  });

  it('a valid token for an unknown user → 403 with context.ledger_api_error "invalid token"', async () => {
    const r = await ledger.call('GET', '/v2/state/ledger-end', undefined, { as: 'nobody' });
    expect(r.status).toBe(403);
    redacted(r.json);
    expect(r.json.context).toEqual({ ledger_api_error: 'invalid token' });
  });

  it('a deactivated user → 403 invalid token; a user lacking a right → 403', async () => {
    expect((await ledger.call('POST', '/v2/users', { user: { id: 'sleepy', isDeactivated: true } })).status).toBe(200);
    const r = await ledger.call('GET', '/v2/state/ledger-end', undefined, { as: 'sleepy' });
    expect(r.status).toBe(403);
    expect(r.json.context).toEqual({ ledger_api_error: 'invalid token' });
    expect((await ledger.call('POST', '/v2/users', { user: { id: 'plain' } })).status).toBe(200);
    const denied = await ledger.call('GET', '/v2/users', undefined, { as: 'plain' });
    expect(denied.status).toBe(403);
    redacted(denied.json);
    expect(denied.json.context).toEqual({});
  });

  it('the deprecated scope form is accepted; public routes need no token', async () => {
    const token = await sign({ sub: 'participant_admin', scope: 'daml_ledger_api' });
    expect((await rawCall('/v2/state/ledger-end', `Bearer ${token}`)).status).toBe(200);
    expect((await rawCall('/livez')).status).toBe(200);
    expect((await rawCall('/readyz')).status).toBe(200);
    const metrics = await rawCall('/metrics');
    expect(metrics.text).toContain('ledgerline_http_requests_total');
  });
});

describe('users and rights', () => {
  it('creates a user, grants and revokes rights, lists and deletes', async () => {
    const party = 'alice::1220' + 'a'.repeat(64);
    const created = await ledger.call('POST', '/v2/users', {
      user: { id: 'alice', primaryParty: party, metadata: { annotations: { team: 'x' } } },
      rights: [{ kind: { CanReadAs: { value: { party } } } }],
    });
    expect(created.status).toBe(200);
    expect(created.json.user).toEqual({
      id: 'alice',
      primaryParty: party,
      isDeactivated: false,
      metadata: { resourceVersion: '0', annotations: { team: 'x' } },
      identityProviderId: '',
      primaryPartyAuthentication: false,
    });
    const dup = await ledger.call('POST', '/v2/users', { user: { id: 'alice' } });
    expect(dup.status).toBe(409);
    expect(dup.json.code).toBe('USER_ALREADY_EXISTS');

    const grant = await ledger.call('POST', '/v2/users/alice/rights', {
      userId: 'alice',
      rights: [{ kind: { CanReadAs: { value: { party } } } }, { kind: { CanActAs: { value: { party } } } }],
    });
    expect(grant.json).toEqual({ newlyGrantedRights: [{ kind: { CanActAs: { value: { party } } } }] });

    // alice reads herself with her own token; she may not list users
    const self = await ledger.call('GET', '/v2/authenticated-user', undefined, { as: 'alice' });
    expect(self.json.user.id).toBe('alice');
    const rights = await ledger.call('GET', '/v2/users/alice/rights', undefined, { as: 'alice' });
    expect(rights.json.rights).toHaveLength(2);

    const revoke = await ledger.call('PATCH', '/v2/users/alice/rights', {
      userId: 'alice',
      rights: [{ kind: { CanActAs: { value: { party } } } }],
    });
    expect(revoke.json).toEqual({ newlyRevokedRights: [{ kind: { CanActAs: { value: { party } } } }] });

    const page1 = await ledger.call('GET', '/v2/users?pageSize=1');
    expect(page1.json.users).toHaveLength(1);
    expect(page1.json.nextPageToken).not.toBe('');
    const page2 = await ledger.call('GET', `/v2/users?pageSize=1000&pageToken=${page1.json.nextPageToken}`);
    expect(page2.json.users.map((u: { id: string }) => u.id)).not.toContain(page1.json.users[0].id);
    expect(page2.json.nextPageToken).toBe('');

    expect((await ledger.call('DELETE', '/v2/users/alice')).json).toEqual({});
    const gone = await ledger.call('GET', '/v2/users/alice');
    expect(gone.status).toBe(404);
    expect(gone.json).toMatchObject({ code: 'USER_NOT_FOUND', resources: [['USER', 'alice']], errorCategory: 11 });
  });

  it('refuses page tokens that are not ones the server issued (found by the fuzzer: a NUL byte reached the query)', async () => {
    for (const token of ['%2FwA', 'AA', '!!!', 'YWxpY2U']) {
      const r = await ledger.call('GET', `/v2/users?pageToken=${token}`);
      expect(r.status, token).toBe(token === 'YWxpY2U' ? 200 : 400);
      if (r.status === 400) expect(r.json.cause).toMatch(/Invalid page token$/);
    }
  });

  it('only a participant admin hands out ParticipantAdmin', async () => {
    await ledger.call('POST', '/v2/users', {
      user: { id: 'idp-admin' },
      rights: [{ kind: { IdentityProviderAdmin: { value: {} } } }],
    });
    const r = await ledger.call(
      'POST',
      '/v2/users',
      { user: { id: 'wannabe' }, rights: [{ kind: { ParticipantAdmin: { value: {} } } }] },
      { as: 'idp-admin' },
    );
    expect(r.status).toBe(403);
    expect((await ledger.call('GET', '/v2/users/wannabe')).status).toBe(404);
  });
});

describe('request handling', () => {
  it('accepts JSON bodies without a Content-Type header (core-ledger-client does this)', async () => {
    const res = await fetch(`${ledger.url}/v2/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await ledger.token()}` },
      body: JSON.stringify({ user: { id: 'no-content-type' } }),
    });
    expect(res.status).toBe(200);
  });

  it('reads the body as JSON whatever the Content-Type says (curl -d sends form-urlencoded)', async () => {
    for (const [i, type] of ['application/x-www-form-urlencoded', 'text/plain', 'application/octet-stream'].entries()) {
      const r = await ledger.call('POST', '/v2/users', undefined, {
        raw: JSON.stringify({ user: { id: `typed-${i}` } }),
        headers: { 'content-type': type },
      });
      expect(r.status, type).toBe(200);
      expect(r.json.user.id).toBe(`typed-${i}`);
    }
  });

  it('undecodable bodies are 400 text/plain "Invalid value for: body (…)" and change nothing', async () => {
    const before = (await ledger.call('GET', '/v2/users')).json.users.length;
    const malformed = await ledger.call('POST', '/v2/users', undefined, { raw: '{"user": {' });
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(malformed.text).toMatch(/^Invalid value for: body \(/);
    const wrongType = await ledger.call('POST', '/v2/users', { user: { id: 42 } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.text).toBe("Invalid value for: body (Got value with wrong type, expecting string at 'user.id')");
    const missing = await ledger.call('POST', '/v2/users', {});
    expect(missing.text).toBe("Invalid value for: body (Missing required field at 'user')");
    expect((await ledger.call('GET', '/v2/users')).json.users.length).toBe(before);
  });

  it('unknown routes and oversized bodies answer as JsCantonError', async () => {
    const nf = await ledger.call('GET', '/v2/does-not-exist');
    expect(nf.status).toBe(404);
    expect(nf.json).toMatchObject({ code: 'NOT_FOUND', errorCategory: 11 });
    const big = await ledger.call('POST', '/v2/users', undefined, {
      raw: JSON.stringify({ user: { id: 'x' }, pad: 'y'.repeat(11 * 1024 * 1024) }),
    });
    expect(big.status).toBe(413);
    expect(big.json.code).toBe('REQUEST_TOO_LARGE');
  });

  it('long party ids in paths are routed (beyond Fastify’s default 100 characters)', async () => {
    const long = 'p'.repeat(180) + '::1220' + 'b'.repeat(64);
    const r = await ledger.call('GET', `/v2/users/${encodeURIComponent(long.slice(0, 120))}`);
    expect(r.status).not.toBe(414);
    expect(r.json.code).toBe('USER_NOT_FOUND');
  });

  it('every error body carries the trace id that the log carries', async () => {
    const r = await ledger.call('GET', '/v2/users/ghost', undefined, {
      headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
    });
    expect(r.json.traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(r.json.context.tid).toBe('0af7651916cd43dd8448eb211c80319c');
  });

  it('serves version, ledger end, synchronizers and the OpenAPI document', async () => {
    expect((await ledger.call('GET', '/v2/version')).json.version).toMatch(/^3\.5/);
    expect((await ledger.call('GET', '/v2/state/ledger-end')).json).toEqual({ offset: 0 });
    const syncs = (await ledger.call('GET', '/v2/state/connected-synchronizers')).json.connectedSynchronizers;
    // One synchronizer by default, as Canton's sandbox.
    expect(syncs).toHaveLength(1);
    for (const s of syncs) expect(s.synchronizerId).toMatch(/^[a-z]+::1220[0-9a-f]{64}$/);
    const doc = (await ledger.call('GET', '/docs/openapi', undefined, { as: null })).json;
    expect(doc.paths['/v2/users'].post.requestBody).toBeDefined();
  });
});
