import { isoMicros, type CommittedEvent } from '@ledgerline/domain';
import type { Decider } from './decider';
import { LedgerHead } from './ledger-head';

/** A decision carried out on paper: the events as the writer would commit them after offset `at`, and the answer. */
export interface DryRunDecision<R> {
  committed: CommittedEvent[];
  answer: R;
}

/**
 * The writer's decide step without the writer: `decider.decide` on a state the caller read (a dry run's, at offset `at`),
 * its events given the places the writer would give them if they were appended right after `at` (offsets, update ids,
 * the record time `now`), and the decision's answer made from them. Nothing is written; the writer's lock is not taken.
 */
export function dryRunDecision<C, K, S, R>(
  decider: Decider<C, K, S, R>,
  state: S,
  command: C,
  at: { offset: number; now: bigint; participantId: string },
): DryRunDecision<R> {
  const d = decider.decide(state, command);
  const head = new LedgerHead(
    { seq: 0, ledger_offset: at.offset, record_time_micros: '0' },
    at.participantId,
    () => at.now,
  );
  const recordedAt = isoMicros(at.now);
  const committed = d.events.map((e) => head.assign(e, recordedAt, e.dataText ?? JSON.stringify(e.data)));
  return { committed, answer: d.answer(committed) };
}
