import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { EventStore, openDatabase } from '@ledgerline/store';
import { createTestDatabase } from '../../support/database';
import { TEST_JWT_SECRET } from '../../support/ledger';
import { callJson, scopeToken, startServerProcess, type ServerProcess } from '../../support/server-process';
import { ALICE, created, tx, txEvent } from '../../support/updates-scenario';

/**
 * Memory stays bounded under clients that open WebSocket streams over a large range and never read: the server (a child
 * process, so that its resident memory is its own) must stop reading pages once a socket's unsent bytes pass its high-water
 * mark, instead of buffering the whole range per client. The range is made large on purpose (≈ 8,000 updates of ≈ 6 KB):
 * without back-pressure the paused sockets would make the server hold several times the bound asserted here.
 */
const UPDATES = 8000;
const NOTE = 6000;
const SOCKETS = 8;
/** Generous: what a server may grow by while SOCKETS paused streams are open (pages, socket buffers, GC slack). */
const BOUND_MIB = 200;

let server: ServerProcess;

beforeAll(async () => {
  const { url } = await createTestDatabase();
  const database = openDatabase(url, { max: 4 });
  try {
    const store = new EventStore(database.db, { participantId: 'memory::1220' + 'ab'.repeat(32) });
    for (let start = 0; start < UPDATES; start += 250) {
      const events = Array.from({ length: 250 }, (_, i) => {
        const n = 1_000_000 + start + i;
        const c = created(n, 'iou', [ALICE], [], { createArgument: { owner: ALICE, note: `${n}`.padEnd(NOTE, 'x') } });
        return txEvent(`mem:${n}`, tx(`mem-${n}`, [{ CreatedEvent: c }], [ALICE]), [ALICE]);
      });
      await store.append(events);
    }
  } finally {
    await database.close();
  }
  server = await startServerProcess({ DATABASE_URL: url, LEDGER_JWT_SECRET: TEST_JWT_SECRET });
  const created_ = await callJson(server.url, 'POST', '/v2/users', await scopeToken(), {
    user: { id: 'reader' },
    rights: [{ kind: { CanReadAsAnyParty: { value: {} } } }],
  });
  expect(created_.status).toBe(200);
}, 180_000);

afterAll(async () => {
  await server?.stop();
});

const rssMiB = () =>
  Number(/^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${server.proc.pid}/status`, 'utf8'))![1]) / 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function open(
  token: string,
  request: unknown,
  paused: boolean,
): { ws: WebSocket; count: () => number; closed: Promise<number> } {
  const ws = new WebSocket(server.url.replace(/^http/, 'ws') + '/v2/updates', ['daml.ws.auth', `jwt.token.${token}`]);
  let n = 0;
  ws.on('open', () => {
    ws.send(JSON.stringify(request));
    if (paused) ws.pause();
  });
  ws.on('message', () => n++);
  const closed = new Promise<number>((resolve, reject) => {
    ws.on('close', (code) => resolve(code));
    ws.on('error', reject);
  });
  return { ws, count: () => n, closed };
}

describe('memory under WebSocket clients that never read', () => {
  it(`${SOCKETS} paused streams over ${UPDATES} updates grow the server by less than ${BOUND_MIB} MiB, and each stream still delivers everything`, async () => {
    const token = await scopeToken('reader');
    const end = (await callJson(server.url, 'GET', '/v2/state/ledger-end', token)).json.offset as number;
    expect(end).toBeGreaterThanOrEqual(UPDATES);
    const request = { beginExclusive: 0, endInclusive: end, filter: { filtersForAnyParty: {} }, verbose: false };
    // What one stream carries: far more than the bound, times the number of sockets.
    const rangeMiB = (UPDATES * NOTE) / (1024 * 1024);
    expect(rangeMiB * SOCKETS).toBeGreaterThan(BOUND_MIB * 1.5);

    // Warm up the code paths (one full stream, read), then take the baseline.
    const warm = open(token, { ...request, endInclusive: 600 }, false);
    expect(await warm.closed).toBe(1000);
    // Lets the warm-up's garbage settle before the baseline is read.
    await sleep(500);
    const baseline = rssMiB();

    const paused = Array.from({ length: SOCKETS }, () => open(token, request, true));
    let peak = baseline;
    for (let i = 0; i < 24; i++) {
      // RSS is sampled over a window while the streams stay paused.
      await sleep(250);
      peak = Math.max(peak, rssMiB());
    }
    console.log(
      `[stream-memory] RSS baseline ${baseline.toFixed(0)} MiB, peak with ${SOCKETS} paused streams ${peak.toFixed(0)} MiB (+${(peak - baseline).toFixed(0)} MiB); one range ≈ ${rangeMiB.toFixed(0)} MiB`,
    );
    expect(peak - baseline).toBeLessThan(BOUND_MIB);

    // The streams were held back, not dropped: one resumed reader receives the whole range and a normal close.
    const first = paused[0];
    expect(first.count()).toBeLessThan(end);
    first.ws.resume();
    expect(await first.closed).toBe(1000);
    expect(first.count()).toBe(end);
    for (const p of paused.slice(1)) p.ws.terminate();
  }, 120_000);
});
