import { expect } from 'vitest';
import { isLedgerError, type CommittedEvent, type LedgerError, type NewLedgerEvent } from '@ledgerline/domain';
import { conflictsOf, type Conflicts, type Decider, type Decision } from '@ledgerline/store';

/**
 * Given/when/then specifications of a decider's decisions, pure: `given` is the state its load would return, `when` the
 * command, `then` the events and the answer (or the rejection). No database: the events are "committed" here, with
 * sequence numbers and offsets after `ledgerEnd`, so answers made of offsets and update ids can be checked.
 *
 *   spec(userDeletionDecider).given(state).when(command).then([event], answer)
 *   spec(userDeletionDecider).given(state).when(command).rejects('USER_NOT_FOUND')
 */
export function spec<C, K, S, R>(decider: Decider<C, K, S, R>, opts: { ledgerEnd?: number } = {}) {
  return {
    given: (state: S) => ({
      when: (command: C) => new Outcome(() => decider.decide(state, command), opts.ledgerEnd ?? 100),
    }),
  };
}

/** The conflict keys a decider declares for a command. */
export const conflictKeysOf = <C, K, S, R>(decider: Decider<C, K, S, R>, command: C): Conflicts =>
  conflictsOf(decider.conflicts, decider.key(command));

/** The events of `decision` as the writer would commit them after `ledgerEnd` (offsets, update ids `update-<offset>`). */
export function commitForSpec(events: readonly NewLedgerEvent[], ledgerEnd: number): CommittedEvent[] {
  let offset = ledgerEnd;
  const recordedAt = '2026-01-01T00:00:00.000000Z';
  return events.map((e, i) => {
    const own = e.update || e.ownOffset ? ++offset : undefined;
    return {
      seq: 1_000 + i,
      type: e.type,
      stream: e.stream,
      data: e.data,
      offset: own,
      recordedAt,
      update: e.update ? { ...e.update, offset: own!, recordTime: recordedAt, updateId: `update-${own}` } : undefined,
    };
  });
}

class Outcome<R> {
  constructor(
    private readonly decide: () => Decision<R>,
    private readonly ledgerEnd: number,
  ) {}

  /** The decision, its events committed: checked by the caller. */
  decision(): { events: readonly NewLedgerEvent[]; answer: R; writesFirst: boolean } {
    const d = this.decide();
    return {
      events: d.events,
      answer: d.answer(commitForSpec(d.events, this.ledgerEnd)),
      writesFirst: d.writeFirst !== undefined,
    };
  }

  /** The decision appends exactly `events` (compared as data) and, when given, answers `answer`. */
  then(events: readonly NewLedgerEvent[], ...answer: [] | [R]): R {
    const d = this.decision();
    expect(d.events).toEqual(events);
    if (answer.length) expect(d.answer).toEqual(answer[0]);
    return d.answer;
  }

  /** The decision appends nothing and, when given, answers `answer`. */
  thenNothing(...answer: [] | [R]): R {
    return this.then([], ...answer);
  }

  /** The decision rejects the command with a LedgerError of `code` (and `cause`, when given): nothing is appended. */
  rejects(code: string, cause?: string | RegExp): LedgerError {
    let decided: Decision<R> | undefined;
    let error: unknown;
    try {
      decided = this.decide();
    } catch (e) {
      error = e;
    }
    expect(decided?.events, 'the command was not rejected').toBeUndefined();
    if (!isLedgerError(error)) throw error;
    expect(error.code).toBe(code);
    if (typeof cause === 'string') expect(error.causeText).toBe(cause);
    else if (cause) expect(error.causeText).toMatch(cause);
    return error;
  }
}
