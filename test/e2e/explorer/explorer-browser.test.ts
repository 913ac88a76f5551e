import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { mintHs256Token } from '@ledgerline/auth';
import { NodeSecretsRepository, openDatabase } from '@ledgerline/store';
import {
  createNode,
  executeRequest,
  externalParty,
  freshContractId,
  preparedTransaction,
} from '../../../testkit/external-signing';
import { browserAvailability, launchChromium } from '../../../testkit/browser';
import { createTestDatabase } from '../../support/database';
import { ed25519Key, onboardExternalParty } from '../../support/external-party';
import { requestJson, type TestLedger } from '../../support/ledger';
import { startServerProcess, type ServerProcess } from '../../support/server-process';

/**
 * The explorer in Debian's Chromium against the built server (a child process, as `npm start` runs it) on PostgreSQL:
 * the start-up sign-in link, a transaction committed after the page opened appearing live, its page, a party's and a
 * contract's pages, deep links surviving a reload, what a non-admin sees, and the messages for refused tokens.
 * EXPLORER_SCREENSHOTS=<folder> also saves the screenshots the README shows.
 */
const availability = browserAvailability();
const SHOTS = process.env.EXPLORER_SCREENSHOTS;
const WAIT = { timeout: 20_000 };

let server: ServerProcess;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let signInLink: string;
let adminToken: string;
let secret: string;
let participantId: string;
let synchronizerId: string;
const alice = externalParty('alice', Buffer.alloc(32, 1));
const bob = externalParty('bob', Buffer.alloc(32, 2));

/** The JSON API of the server process, called with `token` (what the support helpers expect of a ledger). */
const apiAs = (token: string): Pick<TestLedger, 'call'> => ({
  call: (method, p, body) => requestJson(server.url + p, method, { authorization: `Bearer ${token}` }, body),
});

/** Creates a contract of alice's (bob observing) through executeAndWait, as alice-app; returns the update and contract ids. */
async function commitCreate(note: string): Promise<{ updateId: string; contractId: string }> {
  const contractId = freshContractId();
  const pt = preparedTransaction({
    nodes: [createNode('0', { contractId, signatories: [alice.party], stakeholders: [alice.party, bob.party] })],
    actAs: [alice.party],
    synchronizerId,
    commandId: `explorer-${note}`,
  });
  const token = await mintHs256Token({ secret, userId: 'alice-app', participantId });
  const r = await apiAs(token).call(
    'POST',
    '/v2/interactive-submission/executeAndWaitForTransaction',
    executeRequest(pt, [alice]),
  );
  expect(r.status, r.text).toBe(200);
  // The committed id is the prepared (local) one with Canton's suffix.
  const created = (r.json.transaction.events as Array<{ CreatedEvent?: { contractId: string } }>).find(
    (e) => e.CreatedEvent,
  );
  expect(created?.CreatedEvent?.contractId.startsWith(contractId)).toBe(true);
  return { updateId: r.json.transaction.updateId, contractId: created!.CreatedEvent!.contractId };
}

async function shot(name: string): Promise<void> {
  if (!SHOTS) return;
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `explorer-${name}.png`) });
}

const heading = (p: Page) => p.getByRole('heading', { level: 1 });

if (!availability.present && availability.required) {
  describe('explorer in a browser', () => {
    it('has a browser to run in (CI=true requires one)', () => {
      throw new Error(`the browser tests cannot run: ${availability.reason}`);
    });
  });
}

describe.skipIf(!availability.present)('explorer in a browser', () => {
  beforeAll(async () => {
    const { url } = await createTestDatabase();
    // No JWT key configured: the generated secret, as on a first `npm start`.
    server = await startServerProcess({ DATABASE_URL: url, LEDGER_LOG_LEVEL: 'info' });
    const link = /http:\/\/\S+\/explorer#token=(\S+)/.exec(server.streams().stderr);
    expect(link, server.output()).not.toBeNull();
    signInLink = link![0];
    adminToken = link![1];
    const db = openDatabase(url, { max: 1 });
    secret = (await new NodeSecretsRepository().get(db.db, 'jwt_hs256_secret'))!;
    await db.close();
    const admin = apiAs(adminToken);
    participantId = (await admin.call('GET', '/v2/parties/participant-id')).json.participantId;
    for (const [party, seed] of [
      [alice, 1],
      [bob, 2],
    ] as const) {
      const onboarded = await onboardExternalParty(
        admin,
        party.party.split('::')[0],
        ed25519Key(Buffer.alloc(32, seed)),
      );
      expect(onboarded.partyId).toBe(party.party);
    }
    synchronizerId = (await admin.call('GET', '/v2/state/connected-synchronizers')).json.connectedSynchronizers[0]
      .synchronizerId;
    const rights = [
      { kind: { CanExecuteAs: { value: { party: alice.party } } } },
      { kind: { CanReadAs: { value: { party: alice.party } } } },
    ];
    expect(
      (await admin.call('POST', '/v2/users', { user: { id: 'alice-app', primaryParty: alice.party }, rights })).status,
    ).toBe(200);
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 820 } });
    page = await context.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('signs in with the link npm start prints: the token leaves the address bar and never reaches the JSON log', async () => {
    expect(server.streams().stdout).not.toContain(adminToken);
    await page.goto(signInLink);
    await heading(page).filter({ hasText: 'Live updates' }).waitFor(WAIT);
    expect(page.url()).toBe(`${server.url}/explorer`);
    await page.getByRole('link', { name: 'participant_admin' }).waitFor(WAIT);
    // An administrator reads no party's updates until it holds CanReadAsAnyParty; the ledger end needs no party right.
    await page
      .getByTestId('ledger-end')
      .filter({ hasText: /^[1-9][0-9]*$/ })
      .waitFor(WAIT);
    // The page offers to grant the right.
    await page.getByRole('button', { name: /Grant participant_admin CanReadAsAnyParty/ }).click();
    await page.getByTestId('connection').filter({ hasText: 'live' }).waitFor(WAIT);
  });

  let first: { updateId: string; contractId: string };

  it('shows a transaction committed after the page opened, live', async () => {
    const before = Number(await page.getByTestId('ledger-end').textContent());
    first = await commitCreate('first');
    const row = page.getByRole('link', { name: first.updateId.slice(0, 14) });
    await row.waitFor(WAIT);
    await page
      .getByTestId('ledger-end')
      .filter({ hasNotText: String(before) })
      .waitFor(WAIT);
    await commitCreate('second');
    await page.getByRole('listitem').filter({ hasText: '1 created' }).nth(1).waitFor(WAIT);
    await shot('live');
  });

  it('pauses and resumes without losing what committed meanwhile', async () => {
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByTestId('connection').filter({ hasText: 'paused' }).waitFor(WAIT);
    const whilePaused = await commitCreate('while-paused');
    await page.waitForTimeout(500);
    expect(await page.getByRole('link', { name: whilePaused.updateId.slice(0, 14) }).count()).toBe(0);
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByRole('link', { name: whilePaused.updateId.slice(0, 14) }).waitFor(WAIT);
  });

  it('opens the transaction: offsets, times, events, stakeholders, create arguments and the raw JSON', async () => {
    await page.getByRole('link', { name: first.updateId.slice(0, 14) }).click();
    await heading(page)
      .filter({ hasText: `Update ${first.updateId}` })
      .waitFor(WAIT);
    expect(page.url()).toBe(`${server.url}/explorer/updates/${first.updateId}`);
    const main = page.getByRole('main');
    await main.getByText('Record time').waitFor(WAIT);
    for (const text of ['Offset', 'Effective at', 'Synchronizer', 'Create arguments', 'Signatories', 'Observers'])
      await main.getByText(text, { exact: true }).first().waitFor(WAIT);
    await main.getByText('hello', { exact: true }).waitFor(WAIT);
    await main.getByText('Raw JSON').click();
    await main.getByText(`"updateId": "${first.updateId}"`).waitFor(WAIT);
    await shot('update');
  });

  it('follows a contract: its events by contract id, its create arguments readable', async () => {
    await page
      .getByRole('main')
      .getByRole('link', { name: first.contractId.slice(0, 16) })
      .first()
      .click();
    await heading(page)
      .filter({ hasText: `Contract ${first.contractId}` })
      .waitFor(WAIT);
    expect(page.url()).toBe(`${server.url}/explorer/contracts/${first.contractId}`);
    const main = page.getByRole('main');
    await main.getByText('active', { exact: true }).waitFor(WAIT);
    await main.getByText('hello', { exact: true }).waitFor(WAIT);
    await shot('contract');
    await page.goBack();
    await heading(page)
      .filter({ hasText: `Update ${first.updateId}` })
      .waitFor(WAIT);
  });

  it('follows a party: details, its active contracts, its recent updates; a reload stays there', async () => {
    await page
      .getByRole('main')
      .getByRole('link', { name: /^alice::/ })
      .first()
      .click();
    await heading(page)
      .filter({ hasText: `Party ${alice.party}` })
      .waitFor(WAIT);
    expect(page.url()).toBe(`${server.url}/explorer/parties/${encodeURIComponent(alice.party)}`);
    await page
      .getByRole('table')
      .getByRole('link', { name: first.contractId.slice(0, 16) })
      .waitFor(WAIT);
    await page
      .getByRole('list', { name: /party's updates/ })
      .getByRole('link', { name: first.updateId.slice(0, 14) })
      .waitFor(WAIT);
    await shot('party');
    await page.reload();
    await heading(page)
      .filter({ hasText: `Party ${alice.party}` })
      .waitFor(WAIT);
  });

  it("pages through a party's active contracts and older updates", async () => {
    // Alice holds 3 contracts; 23 more make 26: a full page of 25 and one more.
    for (let i = 0; i < 23; i++) await commitCreate(`bulk-${i}`);
    await page.reload();
    const contracts = page.getByRole('table');
    await contracts.getByRole('row').nth(25).waitFor(WAIT);
    expect(await contracts.getByRole('row').count()).toBe(26); // the header and 25 contracts
    await page.getByRole('button', { name: 'More contracts' }).click();
    await page.getByText(/, page 2\.$/).waitFor(WAIT);
    expect(await contracts.getByRole('row').count()).toBe(2);
    await page.getByRole('button', { name: 'Previous contracts' }).click();
    await contracts.getByRole('row').nth(25).waitFor(WAIT);
    // The newest 25 of alice's 27 updates leave out the first transaction: it is on the next page.
    const updates = page.getByRole('list', { name: /party's updates/ });
    await updates.getByRole('listitem').nth(24).waitFor(WAIT);
    expect(await updates.getByRole('link', { name: first.updateId.slice(0, 14) }).count()).toBe(0);
    await page.getByRole('button', { name: 'Older updates' }).click();
    await updates.getByRole('link', { name: first.updateId.slice(0, 14) }).waitFor(WAIT);
  });

  it("lists users and their rights for an admin, a user's completions, and the synchronizers", async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).click();
    await page.getByRole('link', { name: 'alice-app' }).click();
    await heading(page).filter({ hasText: 'User alice-app' }).waitFor(WAIT);
    await page.getByRole('cell', { name: 'CanExecuteAs' }).waitFor(WAIT);
    await page.getByRole('link', { name: 'Command completions of this user' }).click();
    await heading(page).filter({ hasText: 'Completions of alice-app' }).waitFor(WAIT);
    // executeAndWait's completion of the first transaction: accepted, linked to its update.
    const completion = page.getByRole('row').filter({ hasText: 'explorer-first' });
    await completion.getByRole('link', { name: first.updateId.slice(0, 14) }).waitFor(WAIT);
    await completion.getByText('accepted').waitFor(WAIT);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Synchronizers' }).click();
    await page.getByRole('cell', { name: synchronizerId }).waitFor(WAIT);
  });

  it('is usable from the keyboard: skip link first, then the go-to box leads to an offset', async () => {
    await page.goto(`${server.url}/explorer/synchronizers`);
    await heading(page).filter({ hasText: 'Synchronizers' }).waitFor(WAIT);
    await page.keyboard.press('Tab');
    expect(await page.locator(':focus').textContent()).toBe('Skip to content');
    await page.getByLabel('Go to').focus();
    await page.keyboard.type('1');
    await page.keyboard.press('Enter');
    await heading(page).filter({ hasText: 'Update at offset 1' }).waitFor(WAIT);
    // Focus moves to the new page's heading (after it renders).
    await page.locator('h1:focus').filter({ hasText: 'Update at offset 1' }).waitFor(WAIT);
  });

  it("shows a non-admin only what its token may read, and no users' page", async () => {
    const ctx = await browser.newContext();
    try {
      const p = await ctx.newPage();
      // Valid for 60 days: longer than a browser timer can wait, which must not end the session at once.
      const token = await mintHs256Token({
        secret,
        userId: 'alice-app',
        participantId,
        expiresInSeconds: 60 * 24 * 3600,
      });
      await p.goto(`${server.url}/explorer#token=${token}`);
      await p.getByTestId('connection').filter({ hasText: 'live' }).waitFor(WAIT);
      const latest = await commitCreate('seen-by-alice-app');
      await p.getByRole('link', { name: latest.updateId.slice(0, 14) }).waitFor(WAIT);
      await p.waitForTimeout(300);
      expect(await p.getByTestId('sign-in-error').count()).toBe(0);
      expect(await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).count()).toBe(0);
      await p.goto(`${server.url}/explorer/users`);
      await p.getByRole('alert').filter({ hasText: 'Permission denied' }).waitFor(WAIT);
    } finally {
      await ctx.close();
    }
  });

  it('says clearly when the ledger refuses a pasted token, or when it has expired', async () => {
    const ctx = await browser.newContext();
    try {
      const p = await ctx.newPage();
      await p.goto(`${server.url}/explorer`);
      const forged = await mintHs256Token({
        secret: 'not-the-secret-of-this-ledger',
        userId: 'participant_admin',
        participantId,
      });
      await p.getByLabel('Access token (JWT)').fill(forged);
      await p.getByRole('button', { name: 'Sign in' }).click();
      const message = p.getByTestId('sign-in-error');
      await message.filter({ hasText: 'The ledger refused this token' }).waitFor(WAIT);
      if (SHOTS) await p.screenshot({ path: path.join(SHOTS, 'explorer-refused-token.png') });
      const expired = await mintHs256Token({
        secret,
        userId: 'participant_admin',
        participantId,
        expiresInSeconds: -60,
      });
      await p.getByLabel('Access token (JWT)').fill(expired);
      await p.getByRole('button', { name: 'Sign in' }).click();
      await message.filter({ hasText: 'This token expired at' }).waitFor(WAIT);
    } finally {
      await ctx.close();
    }
  });

  it('ends the session with a message when the token expires, or when the ledger stops accepting it', async () => {
    const ctx = await browser.newContext();
    try {
      const p = await ctx.newPage();
      const shortLived = await mintHs256Token({ secret, userId: 'alice-app', participantId, expiresInSeconds: 3 });
      await p.goto(`${server.url}/explorer#token=${shortLived}`);
      await p.getByTestId('connection').filter({ hasText: 'live' }).waitFor(WAIT);
      await p.getByTestId('sign-in-error').filter({ hasText: 'Your token expired at' }).waitFor(WAIT);

      const admin = apiAs(adminToken);
      expect(
        (await admin.call('POST', '/v2/users', { user: { id: 'short-lived-user', primaryParty: '' }, rights: [] }))
          .status,
      ).toBe(200);
      const token = await mintHs256Token({ secret, userId: 'short-lived-user', participantId });
      await p.goto(`${server.url}/explorer/synchronizers#token=${token}`);
      await heading(p).filter({ hasText: 'Synchronizers' }).waitFor(WAIT);
      expect((await admin.call('DELETE', '/v2/users/short-lived-user')).status).toBe(200);
      await p.waitForTimeout(1200); // the server remembers a user's claims for 1 s
      // The page's own polling may meet the refusal first and sign out (the nav goes away); otherwise a click does.
      const refused = p.getByTestId('sign-in-error').filter({ hasText: 'The ledger refused your token' });
      const navigate = p
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Parties' })
        .click()
        .catch(() => undefined);
      await Promise.race([refused.waitFor(WAIT), navigate]);
      await refused.waitFor(WAIT);
    } finally {
      await ctx.close();
    }
  });
});
