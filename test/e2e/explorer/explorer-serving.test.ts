import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { createTestDatabase } from '../../support/database';
import { startTestLedger, TEST_JWT_SECRET, type TestLedger } from '../../support/ledger';
import { ROOT, startServerProcess } from '../../support/server-process';
import { expectCantonError } from '../../support/canton-error';

/**
 * How the server serves the explorer's files (GET /explorer…) and announces the page at start-up. The page itself is
 * tested in a browser (explorer-browser.test.ts).
 */
let ledger: TestLedger;
beforeAll(async () => {
  ledger = await startTestLedger();
});
afterAll(async () => ledger?.close());

const get = (p: string, headers: Record<string, string> = {}) => fetch(ledger.url + p, { headers });

describe('GET /explorer', () => {
  it('answers the page without a token, locked to its own origin', async () => {
    const r = await get('/explorer');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(r.headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect(r.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(r.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await r.text();
    expect(html).toContain('<script type="module" src="/explorer/assets/explorer.js">');
  });

  it("answers the page's own paths with the page (deep links, reloads), trailing slash and HEAD included", async () => {
    for (const p of [
      '/explorer/',
      '/explorer/updates/1220ab',
      '/explorer/offsets/7',
      `/explorer/parties/${encodeURIComponent('alice::1220ab')}`,
      '/explorer/contracts/00ab',
      '/explorer/users/u/completions',
      '/explorer/synchronizers',
    ]) {
      const r = await get(p);
      expect(r.status, p).toBe(200);
      expect(await r.text(), p).toContain('<div id="app">');
    }
    const head = await fetch(`${ledger.url}/explorer/parties`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });

  it('serves every file the page loads, with a validator: an unchanged file is a 304', async () => {
    const html = await (await get('/explorer')).text();
    const files = [...html.matchAll(/(?:src|href)="(\/explorer\/assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(files.sort()).toEqual(['/explorer/assets/explorer.css', '/explorer/assets/explorer.js']);
    for (const f of files) {
      const r = await get(f);
      expect(r.status, f).toBe(200);
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      const again = await get(f, { 'if-none-match': r.headers.get('etag')! });
      expect(again.status, f).toBe(304);
    }
    expect((await get('/explorer/assets/explorer.js')).headers.get('content-type')).toBe(
      'text/javascript; charset=utf-8',
    );
  });

  it('loads nothing from elsewhere: the built files name no other origin (no CDN, works offline)', () => {
    const dir = path.join(ROOT, 'dist/apps/explorer');
    for (const file of ['index.html', 'assets/explorer.js', 'assets/explorer.css']) {
      const text = fs.readFileSync(path.join(dir, file), 'utf8');
      expect(text.match(/(?:src|href)\s*=\s*["']?(?:https?:)?\/\/[^"'\s>]+/gi) ?? [], file).toEqual([]);
      expect(text.match(/@import\s+url\(\s*["']?https?:/gi) ?? [], file).toEqual([]);
      expect(text.match(/import\s*\(?\s*["']https?:/gi) ?? [], file).toEqual([]);
    }
  });

  it('keeps every other path under /explorer a JsCantonError: unknown page, unknown file, other methods', async () => {
    for (const p of [
      '/explorer/nothing',
      '/explorer/assets/nothing.js',
      '/explorer/assets',
      '/explorer/assets/../index.html',
      '/explorerx',
    ]) {
      const r = await get(p);
      expectCantonError({ status: r.status, json: JSON.parse(await r.text()) }, 404, 'NOT_FOUND', { everyKey: true });
    }
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const r = await fetch(`${ledger.url}/explorer/parties/x`, { method });
      expectCantonError({ status: r.status, json: JSON.parse(await r.text()) }, 405, 'METHOD_NOT_ALLOWED', {
        everyKey: true,
      });
      expect(r.headers.get('allow')).toBe('GET, HEAD');
    }
  });

  it('is not part of the API the server documents (GET /docs/openapi)', async () => {
    const doc = (await ledger.call('GET', '/docs/openapi', undefined, { as: null })).json;
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/explorer'))).toEqual([]);
    expect(Object.keys(doc.paths)).toContain('/v2/state/ledger-end');
  });
});

describe('the explorer at start-up', () => {
  const linkIn = (text: string) => /http:\/\/\S+\/explorer#token=(\S+)/.exec(text);

  it('prints, with the generated secret, a link carrying a 15-minute admin token: on stderr, never in the JSON log', async () => {
    const { url } = await createTestDatabase();
    const server = await startServerProcess({ DATABASE_URL: url, LEDGER_LOG_LEVEL: 'info' });
    try {
      await waitFor(() => linkIn(server.streams().stderr) !== null);
      const { stdout, stderr } = server.streams();
      const link = linkIn(stderr)!;
      expect(link[0].startsWith(`${server.url}/explorer#token=`)).toBe(true);
      expect(stdout).not.toContain(link[1]);
      expect(stdout).toContain(`"url":"${server.url}/explorer"`);
      const claims = decodeJwt(link[1]);
      expect(claims.sub).toBe('participant_admin');
      expect(claims.exp! - claims.iat!).toBe(15 * 60);
      const me = await fetch(`${server.url}/v2/authenticated-user`, {
        headers: { authorization: `Bearer ${link[1]}` },
      });
      expect(((await me.json()) as any).user.id).toBe('participant_admin');
    } finally {
      await server.stop();
    }
  });

  it('prints only where the page is with a configured key, or with the link turned off', async () => {
    for (const env of [{ LEDGER_JWT_SECRET: TEST_JWT_SECRET }, { LEDGER_EXPLORER_SIGN_IN_LINK: 'false' }]) {
      const { url } = await createTestDatabase();
      const server = await startServerProcess({ DATABASE_URL: url, LEDGER_LOG_LEVEL: 'info', ...env });
      try {
        await waitFor(() => server.streams().stdout.includes('ledger explorer'));
        expect(server.output(), JSON.stringify(env)).not.toMatch(/#token=/);
        expect(server.streams().stdout).toContain(`ledger explorer: ${server.url}/explorer`);
      } finally {
        await server.stop();
      }
    }
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('timed out waiting for the start-up lines');
    await new Promise((r) => setTimeout(r, 50));
  }
}
