import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testLedgers, type TestLedgerHandle } from '@ledgerline/testing';
import { requestJson, startTestLedger, TEST_JWT_SECRET, type TestLedger } from '../../support/ledger';

/**
 * /ledgers/<id>/… is no existence oracle: without a token an unknown id answers exactly what a hosted one does
 * (401, redacted body), for every method and for WebSocket upgrades; only a caller presenting a token learns that an id is
 * not hosted (404 HOSTED_LEDGER_NOT_FOUND).
 */
let root: TestLedger;
let hosted: TestLedgerHandle;

beforeAll(async () => {
  root = await startTestLedger();
  hosted = await testLedgers({ url: root.url, secret: TEST_JWT_SECRET }).create({});
});
afterAll(async () => {
  await hosted?.drop();
  await root?.close();
});

const shape = (r: { status: number; json: any }) => ({
  status: r.status,
  code: r.json?.code,
  category: r.json?.errorCategory,
  cause: r.json?.cause,
});

/** A WebSocket upgrade request on a raw socket; the status line of the answer. */
function upgradeStatus(path: string, headers: Record<string, string> = {}): Promise<string> {
  const { port } = new URL(root.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => {
      const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`);
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n` +
          `Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: daml.ws.auth\r\n${extra.join('')}\r\n`,
      );
    });
    let text = '';
    socket.on('data', (d) => {
      text += d;
      if (text.includes('\r\n')) {
        resolve(text.slice(0, text.indexOf('\r\n')));
        socket.destroy();
      }
    });
    socket.on('error', reject);
  });
}

describe('unauthenticated requests under /ledgers/<id>', () => {
  const requests: Array<[string, string, unknown]> = [
    ['GET', '/v2/parties', undefined],
    ['GET', '/v2/state/ledger-end', undefined],
    ['POST', '/v2/parties', { partyIdHint: 'x' }],
    ['GET', '/v2/no-such-route', undefined],
    ['DELETE', '/v2/users/x', undefined],
  ];

  it.each(requests)('%s %s: a hosted and an unknown id answer alike without a token', async (m, p, body) => {
    for (const authorization of [undefined]) {
      const headers: Record<string, string> = authorization ? { authorization } : {};
      const known = await requestJson(`${hosted.url}${p}`, m, headers, body);
      const unknown = await requestJson(`${root.url}/ledgers/no-such-ledger${p}`, m, headers, body);
      expect(shape(known), `${m} ${p} ${authorization}`).toEqual(shape(unknown));
      // A route that does not exist is 404 on every ledger; any other answers 401 without a token.
      if (p !== '/v2/no-such-route')
        expect({ status: unknown.status, code: unknown.json.code }).toEqual({ status: 401, code: 'NA' });
    }
  });

  it('a WebSocket upgrade without a token is refused alike', async () => {
    const known = await upgradeStatus(`/ledgers/${hosted.ledgerId}/v2/updates`);
    const unknown = await upgradeStatus('/ledgers/no-such-ledger/v2/updates');
    expect(unknown).toMatch(/^HTTP\/1\.1 401 /);
    expect(known).toMatch(/^HTTP\/1\.1 401 /);
  });

  it('an authenticated caller learns that the id is not hosted', async () => {
    const r = await requestJson(`${root.url}/ledgers/no-such-ledger/v2/parties`, 'GET', {
      authorization: `Bearer ${await root.token()}`,
    });
    expect({ status: r.status, code: r.json.code }).toEqual({ status: 404, code: 'HOSTED_LEDGER_NOT_FOUND' });
    const ws = await upgradeStatus('/ledgers/no-such-ledger/v2/updates', {
      authorization: `Bearer ${await root.token()}`,
    });
    expect(ws).toMatch(/^HTTP\/1\.1 404 /);
  });
});
