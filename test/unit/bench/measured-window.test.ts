import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { runConcurrent } from '../../../bench/lib/workers';
import { machinePerOp, type CpuSnapshot } from '../../../bench/lib/cpu';

describe('bench harness: the measured window', () => {
  it('opens after the warm-up and closes once every measured operation has finished', async () => {
    const log: string[] = [];
    let inFlight = 0;
    const result = await runConcurrent({
      concurrency: 4,
      warmupMs: 30,
      count: 40,
      op: async () => {
        inFlight++;
        log.push('op');
        await new Promise((r) => setTimeout(r, 1));
        inFlight--;
      },
      onWindow: (edge) => log.push(`${edge}:${inFlight}`),
    });
    const start = log.indexOf('start:0');
    const end = log.indexOf('end:0');
    expect(start).toBeGreaterThan(0); // warm-up operations ran before the window opened
    expect(end).toBe(log.length - 1);
    expect(log.slice(start + 1, end).length).toBe(result.ops);
  });

  it('charges the whole machine’s busy time to the operations of the window', () => {
    const snap = (machineMs: number): CpuSnapshot => ({ machineMs, serverMs: 0, selfMs: 0, stealMs: 0 });
    const m = machinePerOp(snap(1_000), snap(1_500), 2_500, 1_000);
    expect(m?.us).toBe(200); // 500 ms of CPU over 2,500 operations
    expect(m?.busy).toBeCloseTo(500 / (availableParallelism() * 1_000));
    expect(machinePerOp(snap(0), snap(1), 0, 1_000)).toBeUndefined();
  });
});
