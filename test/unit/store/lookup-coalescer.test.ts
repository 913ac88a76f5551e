import { describe, expect, it } from 'vitest';
import { LookupCoalescer } from '@ledgerline/store';

const tick = () => new Promise((r) => setImmediate(r));

function recorder(opts: { maxBatch?: number; maxInFlight?: number } = {}) {
  const calls: string[][] = [];
  const gates: Array<() => void> = [];
  let fail: Error | null = null;
  const c = new LookupCoalescer<string, string>(async (keys) => {
    calls.push(keys);
    await new Promise<void>((r) => gates.push(r));
    if (fail) throw fail;
    return new Map(keys.filter((k) => !k.startsWith('missing')).map((k) => [k, `v:${k}`]));
  }, opts);
  return {
    c,
    calls,
    release: async () => {
      while (gates.length) gates.shift()!();
      // The batch settles, then the next one is scheduled for the end of that turn.
      await tick();
      await tick();
    },
    failWith: (e: Error) => (fail = e),
  };
}

describe('LookupCoalescer', () => {
  it('fetches the keys asked for in one turn with one call, each distinct key once; absent keys resolve to null', async () => {
    const { c, calls, release } = recorder();
    const ps = [c.load('a'), c.load('b'), c.load('a'), c.load('missing-1')];
    await tick();
    expect(calls).toEqual([['a', 'b', 'missing-1']]);
    await release();
    expect(await Promise.all(ps)).toEqual(['v:a', 'v:b', 'v:a', null]);
  });

  it('a lone lookup is sent at the end of its turn, not later', async () => {
    const { c, calls, release } = recorder();
    const p = c.load('x');
    expect(calls).toEqual([]);
    await tick();
    expect(calls).toEqual([['x']]);
    await release();
    expect(await p).toBe('v:x');
  });

  it('with maxInFlight batches running, later keys wait and leave together when one completes', async () => {
    const { c, calls, release } = recorder({ maxInFlight: 1 });
    const first = c.load('a');
    await tick();
    const later = ['b', 'c', 'd'].map((k) => c.load(k));
    await tick();
    await tick();
    expect(calls).toEqual([['a']]);
    await release();
    expect(calls).toEqual([['a'], ['b', 'c', 'd']]);
    await release();
    expect(await first).toBe('v:a');
    expect(await Promise.all(later)).toEqual(['v:b', 'v:c', 'v:d']);
  });

  it('splits more than maxBatch keys into several batches, none larger than maxBatch', async () => {
    const { c, calls, release } = recorder({ maxBatch: 3, maxInFlight: 10 });
    const ps = Array.from({ length: 7 }, (_, i) => c.load(`k${i}`));
    for (let i = 0; i < 5; i++) {
      await tick();
      await release();
    }
    expect(await Promise.all(ps)).toEqual(Array.from({ length: 7 }, (_, i) => `v:k${i}`));
    expect(calls.every((b) => b.length <= 3)).toBe(true);
    expect(calls.flat().sort()).toEqual(Array.from({ length: 7 }, (_, i) => `k${i}`).sort());
  });

  it('a failed fetch fails every lookup of its batch, and the next batch runs normally', async () => {
    const { c, release, failWith } = recorder();
    failWith(new Error('connection lost'));
    const ps = [c.load('a'), c.load('b')].map((p) =>
      p.then(
        () => 'ok',
        (e: Error) => e.message,
      ),
    );
    await tick();
    await release();
    expect(await Promise.all(ps)).toEqual(['connection lost', 'connection lost']);
    failWith(null as unknown as Error);
    const next = c.load('c');
    await tick();
    await release();
    expect(await next).toBe('v:c');
  });
});
