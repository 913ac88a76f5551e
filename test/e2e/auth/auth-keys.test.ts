import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type JWK, type KeyLike } from 'jose';
import { PARTICIPANT_AUDIENCE_PREFIX } from '@ledgerline/auth';
import { startTestLedger, TEST_JWT_SECRET, type TestLedger } from '../../support/ledger';

/**
 * Production key configurations (Canton AuthServiceJWT): RS256 with a PEM public key, ES256 with a JWKS URL, and no algorithm
 * confusion (an HS256 token "signed" with the public key text is not accepted).
 */
type Key = KeyLike | Uint8Array;

async function token(
  ledger: TestLedger,
  alg: string,
  key: Key,
  opts: { kid?: string; sub?: string } = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg, typ: 'JWT', ...(opts.kid ? { kid: opts.kid } : {}) })
    .setSubject(opts.sub ?? 'participant_admin')
    .setAudience(`${PARTICIPANT_AUDIENCE_PREFIX}${ledger.participantId}`)
    .setExpirationTime(now + 600)
    .sign(key);
}

async function status(ledger: TestLedger, jwt: string): Promise<number> {
  const res = await fetch(`${ledger.url}/v2/authenticated-user`, { headers: { authorization: `Bearer ${jwt}` } });
  if (res.status === 401) expect(await res.json()).toMatchObject({ code: 'NA', errorCategory: -1 });
  else await res.arrayBuffer();
  return res.status;
}

/** An unsigned token (`alg: none`). */
function noneToken(ledger: TestLedger): string {
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'participant_admin', aud: `${PARTICIPANT_AUDIENCE_PREFIX}${ledger.participantId}`, exp: Math.floor(Date.now() / 1000) + 600 })}.`;
}

let rsa: { privateKey: KeyLike; publicKey: KeyLike; pem: string };
let otherRsa: KeyLike;
let ec: { privateKey: KeyLike; jwk: JWK };
let otherEc: KeyLike;
let jwksServer: http.Server;
let jwksUrl: string;
let jwksRequests = 0;

beforeAll(async () => {
  const r = await generateKeyPair('RS256', { extractable: true });
  rsa = { ...r, pem: await exportSPKI(r.publicKey) };
  otherRsa = (await generateKeyPair('RS256')).privateKey;
  const e = await generateKeyPair('ES256', { extractable: true });
  ec = { privateKey: e.privateKey, jwk: { ...(await exportJWK(e.publicKey)), kid: 'ec-1', alg: 'ES256', use: 'sig' } };
  otherEc = (await generateKeyPair('ES256')).privateKey;
  jwksServer = http.createServer((req, res) => {
    jwksRequests++;
    if (req.url !== '/jwks.json') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [ec.jwk] }));
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks.json`;
});

afterAll(async () => {
  await new Promise((resolve) => jwksServer?.close(resolve));
});

describe('RS256 with LEDGER_JWT_PUBLIC_KEY (no HMAC secret)', () => {
  let ledger: TestLedger;
  beforeAll(async () => {
    ledger = await startTestLedger({ LEDGER_JWT_SECRET: '', LEDGER_JWT_PUBLIC_KEY: rsa.pem });
  });
  afterAll(async () => ledger?.close());

  it('accepts RS256 tokens signed by the configured key', async () => {
    expect(await status(ledger, await token(ledger, 'RS256', rsa.privateKey))).toBe(200);
    // The user must still exist: a valid signature for an unknown user is 403.
    expect(await status(ledger, await token(ledger, 'RS256', rsa.privateKey, { sub: 'ghost' }))).toBe(403);
  });

  it('rejects another key, HS256 signed with the PEM text (algorithm confusion), HS256 with any secret, and alg none', async () => {
    expect(await status(ledger, await token(ledger, 'RS256', otherRsa))).toBe(401);
    expect(await status(ledger, await token(ledger, 'HS256', new TextEncoder().encode(rsa.pem)))).toBe(401);
    expect(await status(ledger, await token(ledger, 'HS256', new TextEncoder().encode(TEST_JWT_SECRET)))).toBe(401);
    expect(await status(ledger, noneToken(ledger))).toBe(401);
  });
});

describe('HS256 secret and RS256 PEM together', () => {
  let ledger: TestLedger;
  beforeAll(async () => {
    ledger = await startTestLedger({ LEDGER_JWT_PUBLIC_KEY: rsa.pem });
  });
  afterAll(async () => ledger?.close());

  it('each algorithm family is verified with its own key only', async () => {
    expect(await status(ledger, await token(ledger, 'HS256', new TextEncoder().encode(TEST_JWT_SECRET)))).toBe(200);
    expect(await status(ledger, await token(ledger, 'RS256', rsa.privateKey))).toBe(200);
    expect(await status(ledger, await token(ledger, 'HS256', new TextEncoder().encode(rsa.pem)))).toBe(401);
  });
});

describe('ES256 with LEDGER_JWKS_URL', () => {
  let ledger: TestLedger;
  beforeAll(async () => {
    ledger = await startTestLedger({ LEDGER_JWT_SECRET: '', LEDGER_JWKS_URL: jwksUrl });
  });
  afterAll(async () => ledger?.close());

  it('accepts ES256 tokens whose kid names a key of the JWKS, fetched from the URL', async () => {
    const before = jwksRequests;
    expect(await status(ledger, await token(ledger, 'ES256', ec.privateKey, { kid: 'ec-1' }))).toBe(200);
    expect(jwksRequests).toBeGreaterThan(before);
  });

  it('rejects an unknown kid, another key under a known kid, RS256 tokens, HS256 signed with the JWK, and alg none', async () => {
    expect(await status(ledger, await token(ledger, 'ES256', ec.privateKey, { kid: 'unknown' }))).toBe(401);
    expect(await status(ledger, await token(ledger, 'ES256', otherEc, { kid: 'ec-1' }))).toBe(401);
    expect(await status(ledger, await token(ledger, 'RS256', rsa.privateKey, { kid: 'ec-1' }))).toBe(401);
    expect(
      await status(
        ledger,
        await token(ledger, 'HS256', new TextEncoder().encode(JSON.stringify(ec.jwk)), { kid: 'ec-1' }),
      ),
    ).toBe(401);
    expect(await status(ledger, noneToken(ledger))).toBe(401);
  });
});
