/**
 * npm run bench:explorer — what the explorer page does on a large ledger: BENCH_EXPLORER_UPDATES (default 100,000)
 * updates in the log, the page in headless Debian Chromium (playwright-core), the server as a child process.
 *   1. First view: from opening /explorer with a token to the newest updates on screen and the stream live — cold (the
 *      browser's first visit) and warm (the median of three later visits); next to the two reads behind it, in the same
 *      run: the raw SQL read of the 50 newest updates through `pg` (the baseline) and the API's descending page.
 *   2. Deep links: a party's page (its first active contracts and newest updates; then its next page of contracts) and
 *      the update at the middle offset, from navigation to content.
 *   3. A burst of BENCH_EXPLORER_BURST (default 20,000) updates committed while the live view is open: how long the page
 *      takes to show the last one, whether it throttled its socket (back-pressure), and that every update arrived.
 *   Throughout: the tab's memory — JavaScript heap in use, DOM nodes (Chrome's Performance metrics, after a garbage
 *   collection) and the proportional set size of the tab's renderer process.
 * No target: the figures go to docs/benchmarks.md. Knobs: BENCH_DATABASE_URL, BENCH_EXPLORER_UPDATES,
 * BENCH_EXPLORER_BURST, CHROMIUM_PATH, BENCH_JSON=1.
 */
import fs from 'node:fs';
import { Pool } from 'pg';
import type { CDPSession, Page } from 'playwright-core';
import { mintHs256Token } from '@ledgerline/auth';
import { browserAvailability, launchChromium } from '../testkit/browser';
import { envInt, fmt, printTable, withBenchDatabase } from './lib';
import { BENCH_PARTIES, fillUpdateLog, startReadServer } from './lib/update-log';

const UPDATES = envInt('BENCH_EXPLORER_UPDATES', 100_000);
const BURST = envInt('BENCH_EXPLORER_BURST', 20_000);
const SECRET = 'bench-explorer-secret-0123456789ab';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timed(n: number, f: () => Promise<unknown>): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await f();
    ms.push(performance.now() - t);
  }
  return median(ms);
}

/**
 * Memory (MB) of the tab's renderer process — the largest of this process's descendant Chromium renderers (Chromium
 * keeps a spare one, and the previous page's for a while): its proportional set size (PSS: its own pages plus its share
 * of those it shares with the browser's other processes).
 */
function rendererPssMb(): number {
  const parent = new Map<number, number>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* gone */
    }
  }
  const ours = (pid: number): boolean => {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) if (p === process.pid) return true;
    return false;
  };
  let kb = 0;
  for (const pid of parent.keys()) {
    try {
      if (!ours(pid) || !fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer')) continue;
      kb = Math.max(
        kb,
        Number(/^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0),
      );
    } catch {
      /* gone */
    }
  }
  return kb / 1024;
}

interface TabMemory {
  heapMb: number;
  nodes: number;
  rendererMb: number;
}

/** The tab's memory now; `settled`: after a full garbage collection (what the view keeps, not what it left behind). */
async function tabMemory(cdp: CDPSession, settled = true): Promise<TabMemory> {
  if (settled) await cdp.send('HeapProfiler.collectGarbage');
  const { metrics } = (await cdp.send('Performance.getMetrics')) as { metrics: Array<{ name: string; value: number }> };
  const m = (name: string) => metrics.find((x) => x.name === name)?.value ?? 0;
  return { heapMb: m('JSHeapUsedSize') / 2 ** 20, nodes: m('Nodes'), rendererMb: rendererPssMb() };
}

/** Opens `url` and waits for the live list's first row and the stream to be live; the milliseconds that took. */
async function firstView(page: Page, url: string): Promise<number> {
  const t = performance.now();
  await page.goto(url);
  await page.locator('.virtual li').first().waitFor({ timeout: 60_000 });
  await page.getByTestId('connection').filter({ hasText: 'live' }).waitFor({ timeout: 60_000 });
  return performance.now() - t;
}

async function main(): Promise<void> {
  const browserState = browserAvailability();
  if (!browserState.present) throw new Error(browserState.reason);
  console.log(`explorer benchmark: ${UPDATES} updates, then a burst of ${BURST} while the live view is open`);
  await withBenchDatabase({ label: 'explorer', migrate: true }, async ({ url }) => {
    const { participantId, seconds } = await fillUpdateLog(url, UPDATES);
    console.log(`wrote ${UPDATES} updates in ${fmt(seconds)} s`);
    const port = 20000 + Math.floor(Math.random() * 20000);
    const server = await startReadServer(url, port, SECRET);
    const base = `http://127.0.0.1:${port}`;
    const pool = new Pool({ connectionString: url, max: 2 });
    const browser = await launchChromium();
    const rows: Array<Array<string | number>> = [['measurement', 'ms', 'JS heap MB', 'DOM nodes', 'tab PSS MB']];
    const results: Record<string, unknown> = { updates: UPDATES, burst: BURST };
    try {
      const admin = await mintHs256Token({ secret: SECRET, userId: 'participant_admin', participantId });
      const created = await fetch(`${base}/v2/users`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          user: { id: 'explorer-reader' },
          rights: [{ kind: { CanReadAsAnyParty: { value: {} } } }],
        }),
      });
      if (!created.ok) throw new Error(`creating the reader failed: ${created.status} ${await created.text()}`);
      const token = await mintHs256Token({ secret: SECRET, userId: 'explorer-reader', participantId });

      // The reads behind the first view: raw SQL (baseline) and the API's descending page of 50.
      const raw = await timed(7, async () => {
        const { rows: page } = await pool.query(
          'SELECT ledger_offset, update_id, payload FROM ledger_updates ORDER BY ledger_offset DESC LIMIT 50',
        );
        for (const r of page) if (typeof r.payload === 'string') JSON.parse(r.payload);
      });
      const wildcard = {
        cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: false } } } }],
      };
      const api = await timed(7, async () => {
        const r = await fetch(`${base}/v2/updates?limit=50`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            beginExclusive: 0,
            endInclusive: UPDATES,
            descendingOrder: true,
            updateFormat: {
              includeTransactions: {
                eventFormat: { filtersForAnyParty: wildcard, verbose: true },
                transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
              },
            },
          }),
        });
        if (((await r.json()) as unknown[]).length !== 50) throw new Error('the descending page is not 50 updates');
      });
      rows.push(['baseline: raw SQL read of the 50 newest updates (pg)', raw, '', '', '']);
      rows.push(['the API call behind it: POST /v2/updates, 50 newest', api, '', '', '']);
      results.baselineMs = raw;
      results.apiMs = api;

      // 1. First view, cold then warm.
      const context = await browser.newContext({ viewport: { width: 1280, height: 820 } });
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send('Performance.enable');
      const cold = await firstView(page, `${base}/explorer#token=${token}`);
      const coldMem = await tabMemory(cdp);
      rows.push([
        'first view, cold (open → newest updates shown, live)',
        cold,
        coldMem.heapMb,
        coldMem.nodes,
        coldMem.rendererMb,
      ]);
      const warmRuns: number[] = [];
      for (let i = 0; i < 3; i++) warmRuns.push(await firstView(page, `${base}/explorer`));
      const warm = median(warmRuns);
      const warmMem = await tabMemory(cdp);
      rows.push(['first view, warm (median of 3 reloads)', warm, warmMem.heapMb, warmMem.nodes, warmMem.rendererMb]);
      Object.assign(results, { coldMs: cold, coldMem, warmMs: warm, warmMem });

      // 2. Deep links.
      const party = BENCH_PARTIES[0];
      let t = performance.now();
      await page.goto(`${base}/explorer/parties/${encodeURIComponent(party)}`);
      await page
        .getByRole('list', { name: /party's updates/ })
        .locator('li')
        .first()
        .waitFor({ timeout: 60_000 });
      await page.getByRole('table').getByRole('row').nth(25).waitFor({ timeout: 60_000 });
      const partyMs = performance.now() - t;
      const partyMem = await tabMemory(cdp);
      const ofParty = (UPDATES / 5).toLocaleString('en');
      rows.push([
        `party page (25 of its ${ofParty} active contracts, newest 25 of its ${ofParty} updates)`,
        partyMs,
        partyMem.heapMb,
        partyMem.nodes,
        partyMem.rendererMb,
      ]);
      t = performance.now();
      await page.getByRole('button', { name: 'More contracts' }).click();
      await page.getByText(/, page 2\.$/).waitFor({ timeout: 60_000 });
      const morePage = performance.now() - t;
      rows.push(['… its next 25 active contracts', morePage, '', '', '']);
      const middle = Math.floor(UPDATES / 2);
      t = performance.now();
      await page.goto(`${base}/explorer/offsets/${middle}`);
      await page.getByRole('heading', { name: /^Created/ }).waitFor({ timeout: 60_000 });
      const offsetMs = performance.now() - t;
      rows.push([`update at offset ${middle.toLocaleString('en')}`, offsetMs, '', '', '']);
      Object.assign(results, { partyMs, partyMem, morePage, offsetMs });

      // 3. A burst while the live view is open.
      await firstView(page, `${base}/explorer`);
      const end = UPDATES + BURST;
      let peak: TabMemory = await tabMemory(cdp, false);
      let throttled = false;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          const m = await tabMemory(cdp, false);
          peak = {
            heapMb: Math.max(peak.heapMb, m.heapMb),
            nodes: Math.max(peak.nodes, m.nodes),
            rendererMb: Math.max(peak.rendererMb, m.rendererMb),
          };
          if ((await page.getByTestId('connection').textContent()) === 'catching up') throttled = true;
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      t = performance.now();
      const written = await fillUpdateLog(url, BURST, UPDATES);
      await page
        .getByTestId('ledger-end')
        .filter({ hasText: new RegExp(`^${end}$`) })
        .waitFor({ timeout: 300_000 });
      await page
        .locator('.virtual li')
        .first()
        .filter({ hasText: String(end) })
        .waitFor({ timeout: 300_000 });
      const caughtUp = performance.now() - t;
      sampling = false;
      await sampler;
      const footer = (await page.getByText(/^Showing the newest/).textContent()) ?? '';
      const shown = Number(/newest (\d+)/.exec(footer)?.[1] ?? 0);
      const dropped = Number(/; (\d+) older ones/.exec(footer)?.[1] ?? 0);
      if (shown + dropped !== 50 + BURST)
        throw new Error(`the live view holds ${shown} + dropped ${dropped}, expected ${50 + BURST} updates`);
      rows.push([
        `burst of ${BURST.toLocaleString('en')} updates (${fmt(BURST / written.seconds)}/s committed) → last one shown${throttled ? ', socket throttled' : ''}`,
        caughtUp,
        peak.heapMb,
        peak.nodes,
        peak.rendererMb,
      ]);
      const after = await tabMemory(cdp);
      rows.push(['… after the burst, settled', '', after.heapMb, after.nodes, after.rendererMb]);
      Object.assign(results, {
        burstCommitPerSec: BURST / written.seconds,
        burstShownMs: caughtUp,
        burstPeak: peak,
        burstAfter: after,
        throttled,
        shown,
        dropped,
      });
      await context.close();
    } finally {
      await browser.close();
      await pool.end();
      server.kill('SIGTERM');
      await new Promise((r) => server.once('exit', r));
    }
    printTable(rows);
    console.log(
      '\nmemory: after the view and a garbage collection (burst: the peak while it lasted); tab PSS = the renderer process',
    );
    if (process.env.BENCH_JSON) console.log(JSON.stringify(results));
  });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
