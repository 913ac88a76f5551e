import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCantonError } from '../../support/canton-error';
import { describeWithDars } from '../../support/conformance';
import { interfacePackages, interfacePackagesDar, type InterfacePackages } from '../../support/interface-packages';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import { PING_DAR, PING_PKG } from '../../support/ping-dar';

/**
 * GET /v2/definitions/packages and /v2/definitions/packages/{packageId}: what the stored packages hold, read back over
 * HTTP after a DAR upload (LF-text packages, and Canton's ping DAR from the conformance folder), and the refusals.
 */
let ledger: TestLedger;
let pkgs: InterfacePackages;

beforeAll(async () => {
  ledger = await startTestLedger();
  pkgs = interfacePackages();
  const sync = ledger.runtime.identity.defaultSynchronizer.id;
  const up = await fetch(`${ledger.url}/v2/dars?synchronizerId=${encodeURIComponent(sync)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await ledger.token()}` },
    body: await interfacePackagesDar(pkgs),
  });
  expect(up.status, await up.text()).toBe(200);
  await ledger.call('POST', '/v2/users', { user: { id: 'plain-reader' } });
}, 60_000);
afterAll(async () => {
  await ledger?.close();
});

describe('package definitions', () => {
  it('lists every stored package with its name, version and what it holds, for any user', async () => {
    const r = await ledger.call('GET', '/v2/definitions/packages', undefined, { as: 'plain-reader' });
    expect(r.status, r.text).toBe(200);
    const byId = new Map((r.json.packages as Array<{ packageId: string }>).map((p) => [p.packageId, p]));
    expect(byId.get(pkgs.api.id)).toEqual({
      packageId: pkgs.api.id,
      name: 'iv-api',
      version: '1.0.0',
      languageVersion: '2.1',
      templates: 0,
      interfaces: 1,
      decoded: true,
    });
    expect(byId.get(pkgs.token.id)).toMatchObject({ name: 'iv-token', templates: 2, interfaces: 0, decoded: true });
  });

  it("renders one package's templates, choices and implemented interfaces, with the imports' types expanded", async () => {
    const r = await ledger.call('GET', `/v2/definitions/packages/${pkgs.token.id}`, undefined, { as: 'plain-reader' });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ packageId: pkgs.token.id, name: 'iv-token', version: '1.0.0', decoded: true });
    const coin = r.json.modules[0].templates.find((t: { name: string }) => t.name === 'Coin');
    expect(coin).toEqual({
      templateId: `${pkgs.token.id}:Token:Coin`,
      name: 'Coin',
      fields: [
        { name: 'issuer', type: 'Party' },
        { name: 'owner', type: 'Party' },
        { name: 'amount', type: 'Numeric 10' },
        { name: 'label', type: 'Text' },
      ],
      signatoryFields: ['issuer'],
      observerFields: ['owner'],
      key: null,
      choices: [
        {
          name: 'Burn',
          consuming: true,
          argumentType: 'Token:Burn',
          argumentFields: [],
          resultType: '()',
          example: {},
        },
      ],
      implements: [`${pkgs.api.id}:Api:Asset`],
      example: { issuer: '<Party>', owner: '<Party>', amount: '0.0', label: '<Text>' },
    });
    const api = await ledger.call('GET', `/v2/definitions/packages/${pkgs.api.id}`);
    expect(api.json.modules[0].interfaces[0]).toMatchObject({
      interfaceId: `${pkgs.api.id}:Api:Asset`,
      viewType: 'Api:AssetView',
      viewFields: [
        { name: 'holder', type: 'Party' },
        { name: 'amount', type: 'Numeric 10' },
        { name: 'label', type: 'Text' },
      ],
    });
  });

  it("answers Canton's package errors for an unknown or malformed id, and 401 without a token", async () => {
    const unknown = 'a'.repeat(64);
    expectCantonError(await ledger.call('GET', `/v2/definitions/packages/${unknown}`), 404, 'PACKAGE_NOT_FOUND');
    expectCantonError(await ledger.call('GET', '/v2/definitions/packages/not.an.id'), 400, 'INVALID_ARGUMENT', {
      cause: /Invalid package id/,
    });
    const anonymous = await ledger.call('GET', '/v2/definitions/packages', undefined, { as: null });
    expect(anonymous.status).toBe(401);
  });
});

describeWithDars("package definitions of Canton's ping DAR", (root) => {
  it('shows the Ping template as the DAR defines it', async () => {
    const sync = ledger.runtime.identity.defaultSynchronizer.id;
    const up = await fetch(`${ledger.url}/v2/dars?synchronizerId=${encodeURIComponent(sync)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await ledger.token()}` },
      body: fs.readFileSync(path.join(root, PING_DAR)),
    });
    expect(up.status, await up.text()).toBe(200);
    const r = await ledger.call('GET', `/v2/definitions/packages/${PING_PKG}`);
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({
      name: 'canton-builtin-admin-workflow-ping',
      version: '3.4.0',
      languageVersion: '2.2',
    });
    const mod = r.json.modules.find((m: { name: string }) => m.name === 'Canton.Internal.Ping');
    const ping = mod.templates.find((t: { name: string }) => t.name === 'Ping');
    expect(ping.fields).toEqual([
      { name: 'id', type: 'Text' },
      { name: 'initiator', type: 'Party' },
      { name: 'responder', type: 'Party' },
    ]);
    expect(ping.signatoryFields).toEqual(['initiator']);
    expect(ping.observerFields).toEqual(['responder']);
    expect(ping.example).toEqual({ id: '<Text>', initiator: '<Party>', responder: '<Party>' });
    const choices = new Map(ping.choices.map((c: { name: string }) => [c.name, c]));
    expect(choices.get('Respond')).toMatchObject({ consuming: true, argumentFields: [], resultType: '()' });
    expect(choices.get('AbortPing')).toMatchObject({
      argumentFields: [{ name: 'anyone', type: 'Party' }],
      example: { anyone: '<Party>' },
    });
  });
});
