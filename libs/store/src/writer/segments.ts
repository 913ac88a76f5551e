import type { Kysely } from 'kysely';
import type { DB } from '../schema';
import type { ConflictKey } from './conflict-key';
import { EVERYTHING, type Decider, type LoadContext } from './decider';
import type { KeyedCall, PendingWork } from './work-queue';

/**
 * The longest run of keyed works from `start` in which no work changes what an earlier one of the run reads or changes,
 * nor reads what an earlier one changes (their conflict keys): their decisions do not depend on each other, so their
 * state can be loaded at once, before any of them runs, with the same outcome as running them one after the other.
 */
export function takeSegment(batch: readonly PendingWork[], start: number): PendingWork[] {
  const reads = new Set<ConflictKey>();
  const writes = new Set<ConflictKey>();
  const segment: PendingWork[] = [];
  for (let i = start; i < batch.length; i++) {
    const w = batch[i].keyed;
    if (!w) break;
    const c = w.conflicts;
    if (segment.length > 0) {
      if (writes.has(EVERYTHING) || c.writes.includes(EVERYTHING)) break;
      if (c.writes.some((k) => reads.has(k) || writes.has(k)) || c.reads.some((k) => writes.has(k))) break;
    }
    segment.push(batch[i]);
    for (const k of c.reads) reads.add(k);
    for (const k of c.writes) writes.add(k);
  }
  return segment;
}

/** The state of every work of a segment: one `load` per decider, for the keys of all the works that use it. */
export async function loadSegment(
  db: Kysely<DB>,
  segment: readonly PendingWork[],
  at: LoadContext,
): Promise<unknown[]> {
  const states = new Array<unknown>(segment.length);
  const byDecider = new Map<Decider<unknown, unknown, unknown, unknown>, number[]>();
  segment.forEach((p, i) => {
    const { decider } = p.keyed as KeyedCall;
    const list = byDecider.get(decider);
    if (list) list.push(i);
    else byDecider.set(decider, [i]);
  });
  for (const [decider, indexes] of byDecider) {
    const out = await decider.load(
      db,
      indexes.map((i) => segment[i].keyed!.key),
      at,
    );
    if (out.length !== indexes.length)
      throw new Error(`decider ${decider.name} loaded ${out.length} states for ${indexes.length} keys`);
    indexes.forEach((w, j) => (states[w] = out[j]));
  }
  return states;
}
