import { describe, expect, it } from 'vitest';
import { createServer, connect, type AddressInfo } from 'node:net';
import { CpuTurns } from '@ledgerline/server/infrastructure/cpu-turns';

const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    /* the CPU-heavy part of a request */
  }
};

describe('CpuTurns', () => {
  it('resumes waiters one per turn, in arrival order', async () => {
    const turns = new CpuTurns();
    const order: string[] = [];
    const all = ['a', 'b', 'c'].map((name) => turns.take().then(() => order.push(name)));
    expect(turns.queued).toBe(3);
    await Promise.all(all);
    expect(order).toEqual(['a', 'b', 'c']);
    expect(turns.queued).toBe(0);
  });

  it('lets a timer that fell due during one request run before the next request', async () => {
    const turns = new CpuTurns();
    const order: string[] = [];
    await Promise.all(
      ['a', 'b', 'c'].map((name) =>
        turns.take().then(() => {
          order.push(name);
          // The timer falls due while a's work runs (set here, not before, so a slow loop cannot fire it first).
          if (name === 'a') setTimeout(() => order.push('timer'), 1);
          busy(5);
        }),
      ),
    );
    await new Promise((r) => setTimeout(r, 5));
    expect(order).toEqual(['a', 'timer', 'b', 'c']);
  });

  it('lets socket data that arrived during one request be read before the next request (the writer is not held back by a burst)', async () => {
    const server = createServer((s) => s.on('data', (d) => s.write(d)));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    try {
      const order: string[] = [];
      const echoed = new Promise<void>((r) => socket.once('data', () => (order.push('reply'), r())));
      const turns = new CpuTurns();
      const requests = ['a', 'b', 'c', 'd'].map((name) =>
        turns.take().then(() => {
          if (name === 'a') socket.write('ping'); // the "database reply" arrives while a runs
          order.push(name);
          busy(20);
        }),
      );
      await Promise.all([...requests, echoed]);
      // Without turns all four would run in one go and the reply would come last.
      expect(order.indexOf('reply')).toBeGreaterThan(0);
      expect(order.indexOf('reply')).toBeLessThan(3);
    } finally {
      socket.destroy();
      await new Promise((r) => server.close(r));
    }
  });

  it('starts again after going idle', async () => {
    const turns = new CpuTurns();
    await turns.take();
    await new Promise((r) => setImmediate(r));
    let resumed = false;
    await turns.take().then(() => (resumed = true));
    expect(resumed).toBe(true);
  });
});
