// Type-checked with the explorer (DOM types): apps/explorer/tsconfig.json includes test/unit/explorer/*.dom.test.ts.
import { describe, expect, it } from 'vitest';
import type { Api } from '../../../apps/explorer/src/api';
import { LiveTail, NO_READABLE_PARTY, type LiveSnapshot } from '../../../apps/explorer/src/live-tail';

/** An Api that serves the ledger end and records every other call. */
function fakeApi(end: () => number) {
  const calls: string[] = [];
  const api = {
    onTokenRefused: () => undefined,
    get: async (path: string) => {
      calls.push(`GET ${path}`);
      if (path === '/v2/state/ledger-end') return { offset: end() };
      throw new Error(`unexpected GET ${path}`);
    },
    post: async (path: string) => {
      calls.push(`POST ${path}`);
      return [];
    },
    socket: (path: string) => {
      calls.push(`WS ${path}`);
      throw new Error('no socket in this test');
    },
  };
  return { api: api as unknown as Api, calls };
}

const until = async (ok: () => boolean, what: string) => {
  const deadline = Date.now() + 5000;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe('live tail of a user who may read no party', () => {
  it('shows the ledger end and keeps it current, without reading any update', async () => {
    let end = 7;
    const { api, calls } = fakeApi(() => end);
    let last: LiveSnapshot | null = null;
    const tail = new LiveTail(api, null, (s) => (last = s), { endPollMs: 20 });
    await tail.start();
    expect(last).toMatchObject({ state: 'stopped', ledgerEnd: 7, error: NO_READABLE_PARTY });
    end = 9;
    await until(() => last?.ledgerEnd === 9, 'the polled ledger end');
    tail.stop();
    expect(calls.every((c) => c === 'GET /v2/state/ledger-end')).toBe(true);
    const polls = calls.length;
    await new Promise((r) => setTimeout(r, 60));
    expect(calls.length).toBe(polls);
  });
});
