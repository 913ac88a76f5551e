/**
 * Ledger time in the engine: the bounds a time read imposes (the cases of Canton's `speedy/LedgerTimeTest.scala`, restated
 * as a table over our bounds functions), `getTime` and `ledger_time_lt` in choices of an LF-text package (the time asked
 * once, the bounds in the transaction metadata), and the interpretation budget (interruptions, the step limit).
 */
import { describe, expect, it } from 'vitest';
import {
  Engine,
  boundsAfterGetTime,
  boundsAfterLedgerTimeLt,
  boundsConstraints,
  decodeArchive,
  lfTime,
  type EngineResult,
  type Package,
  type SubmitContext,
  type TimeRange,
  type TypeConId,
} from '@ledgerline/daml-lf';
import { encodeArchive, parsePackage } from '@ledgerline/daml-lf/testing';

const t0 = 1_800_000_000_000_000n;
const t1 = t0 + 1n;
const t2 = t0 + 2n;
const t3 = t0 + 3n;
const MIN = lfTime.TIMESTAMP_MIN;
const MAX = lfTime.TIMESTAMP_MAX;
const r = (min: bigint, max: bigint): TimeRange => ({ min, max });

/** [now, time, bounds before, answer (undefined: `now` lies outside the bounds, refused), bounds after] */
type Row = [bigint, bigint, TimeRange, boolean | undefined, TimeRange];

const LEDGER_TIME_LT_CASES: Record<string, Row[]> = {
  'the ledger time is after the compared time': [
    [t2, t0, r(t1, t2), false, r(t1, t2)],
    [MAX, t0, r(t1, t2), undefined, r(t1, t2)],
    [t0, MIN, r(t0, t1), false, r(t0, t1)],
    [t1, t0, r(t0, t1), false, r(t0, t1)],
    [t2, t0, r(t0, t1), undefined, r(t0, t1)],
    [t0, MIN, r(MIN, t0), false, r(MIN, t0)],
    [t2, t1, r(t0, t1), undefined, r(t0, t1)],
    [t2, t1, r(t0, t2), false, r(t1, t2)],
    [t1, t0, r(t1, t1), false, r(t1, t1)],
    [t2, t0, r(t1, t1), undefined, r(t1, t1)],
    [t0, MIN, r(t0, t0), false, r(t0, t0)],
    [t2, t0, r(t0, t0), undefined, r(t0, t0)],
    [t2, t1, r(t0, t0), undefined, r(t0, t0)],
  ],
  'the ledger time is the compared time': [
    [t0, t0, r(t1, t2), undefined, r(t1, t2)],
    [MIN, MIN, r(t0, t1), undefined, r(t0, t1)],
    [t0, t0, r(t0, t1), false, r(t0, t1)],
    [MIN, MIN, r(MIN, t0), false, r(MIN, t0)],
    [t1, t1, r(t0, t1), false, r(t1, t1)],
    [t2, t2, r(t0, t1), undefined, r(t0, t1)],
    [t0, t0, r(t1, t1), undefined, r(t1, t1)],
    [MIN, MIN, r(t0, t0), undefined, r(t0, t0)],
    [t0, t0, r(t0, t0), false, r(t0, t0)],
    [MIN, MIN, r(MIN, MIN), false, r(MIN, MIN)],
    [t2, t2, r(t1, t1), undefined, r(t1, t1)],
  ],
  'the ledger time is before the compared time': [
    [t0, t2, r(t1, t2), undefined, r(t1, t2)],
    [t0, t1, r(t0, t1), true, r(t0, t0)],
    [t0, t3, r(t1, t2), undefined, r(t1, t2)],
    [t0, t2, r(t0, t1), true, r(t0, t1)],
    [t0, t3, r(t0, t1), true, r(t0, t1)],
    [t0, MAX, r(t0, t1), true, r(t0, t1)],
    [t0, t1, r(t1, t1), undefined, r(t1, t1)],
    [t0, t1, r(t0, t0), true, r(t0, t0)],
    [t0, t2, r(t1, t1), undefined, r(t1, t1)],
    [t0, t2, r(t0, t0), true, r(t0, t0)],
    [t0, t3, r(t1, t1), undefined, r(t1, t1)],
  ],
};

describe('ledger time bounds: ledger_time_lt (LedgerTimeTest)', () => {
  for (const [group, rows] of Object.entries(LEDGER_TIME_LT_CASES)) {
    it(group, () => {
      for (const [now, time, before, answer, after] of rows) {
        const label = `now=${now - t0}, time=${time - t0}, bounds=[${before.min - t0}, ${before.max - t0}]`;
        if (answer === undefined) {
          let thrown: unknown;
          try {
            boundsAfterLedgerTimeLt(before, now, time);
          } catch (e) {
            thrown = e;
          }
          expect((thrown as { error?: unknown } | undefined)?.error, label).toMatchObject({
            tag: 'Internal',
            message: expect.stringContaining('NeedTime pre-condition failed'),
          });
        } else {
          const out = boundsAfterLedgerTimeLt(before, now, time);
          expect(out.result, label).toBe(answer);
          expect(out.bounds, label).toEqual(after);
        }
      }
    });
  }

  it('getTime pins the bounds to the time read, which must lie within them', () => {
    expect(boundsAfterGetTime(r(MIN, MAX), t1)).toEqual(r(t1, t1));
    expect(boundsAfterGetTime(r(t0, t2), t2)).toEqual(r(t2, t2));
    expect(() => boundsAfterGetTime(r(t0, t1), t2)).toThrow();
  });

  it('a side at the end of the timestamp range is no constraint in the metadata', () => {
    expect(boundsConstraints(r(MIN, MAX))).toEqual({});
    expect(boundsConstraints(r(t0, MAX))).toEqual({ min: t0 });
    expect(boundsConstraints(r(MIN, t1))).toEqual({ max: t1 });
  });
});

const TIMED = `
metadata ( 'ledger-time-test' : '1.0.0' )
module Timed {
  record @serializable Clock = { owner: Party } ;
  record @serializable Until = { deadline: Timestamp } ;
  record @serializable Window = { start: Timestamp, end: Timestamp } ;
  record @serializable Spin = { n: Int64 } ;
  record @serializable Forever = {} ;
  record @serializable Now = {} ;
  template (this : Clock) = {
    precondition True;
    signatories Cons @Party [Timed:Clock {owner} this] (Nil @Party);
    observers Nil @Party;
    choice @nonConsuming Now (self) (arg: Timed:Now) : Timestamp
      , controllers Cons @Party [Timed:Clock {owner} this] (Nil @Party)
      to uget_time ;
    choice @nonConsuming Before (self) (arg: Timed:Until) : Bool
      , controllers Cons @Party [Timed:Clock {owner} this] (Nil @Party)
      to ledger_time_lt (Timed:Until {deadline} arg) ;
    choice @nonConsuming Within (self) (arg: Timed:Window) : Bool
      , controllers Cons @Party [Timed:Clock {owner} this] (Nil @Party)
      to ubind
           early : Bool <- ledger_time_lt (Timed:Window {start} arg) ;
           late : Bool <- ledger_time_lt (Timed:Window {end} arg)
         in upure @Bool (case early of True -> False | False -> late) ;
    choice @nonConsuming Count (self) (arg: Timed:Spin) : Int64
      , controllers Cons @Party [Timed:Clock {owner} this] (Nil @Party)
      to upure @Int64 (Timed:countDown (Timed:Spin {n} arg)) ;
    choice @nonConsuming Loop (self) (arg: Timed:Forever) : Int64
      , controllers Cons @Party [Timed:Clock {owner} this] (Nil @Party)
      to upure @Int64 (Timed:forever 0) ;
  } ;
  val countDown: Int64 -> Int64 = \\(n: Int64) -> case EQUAL @Int64 n 0 of True -> 0 | False -> Timed:countDown (SUB_INT64 n 1) ;
  val forever: Int64 -> Int64 = \\(n: Int64) -> Timed:forever (ADD_INT64 n 1) ;
}
`;

function timedPackage(): Package {
  return decodeArchive(encodeArchive(parsePackage(TIMED, { minor: '1' })).dalf).package;
}

const alice = 'alice::1220aaaa';
const pkg = timedPackage();
const clockId: TypeConId = { packageId: pkg.id, module: 'Timed', name: 'Clock' };

const ctx = (over: Partial<SubmitContext> = {}): SubmitContext => ({
  actAs: [alice],
  readAs: [],
  submissionSeed: Buffer.alloc(32, 7),
  participantId: 'participant1::1220ffff',
  preparationTime: t0,
  ...over,
});

function engine(): Engine {
  const e = new Engine();
  e.addPackage(pkg);
  return e;
}

const run = (choice: string, argument: unknown, over: Partial<SubmitContext> = {}, e = engine()) =>
  e.submit(
    [
      {
        kind: 'createAndExercise',
        templateId: clockId,
        createArgument: { json: { owner: alice } },
        choice,
        choiceArgument: { json: argument },
      },
    ],
    ctx(over),
  );

function done(x: EngineResult): Extract<EngineResult, { tag: 'done' }> {
  if (x.tag !== 'done')
    throw new Error(`expected done, got ${x.tag}${x.tag === 'error' ? `: ${x.error.code} ${x.error.message}` : ''}`);
  return x;
}

const iso = (t: bigint) => new Date(Number(t / 1000n)).toISOString();

describe('ledger time in choices (getTime, ledger_time_lt)', () => {
  it('getTime asks the time once and pins the bounds to it', () => {
    const asked = run('Now', {});
    expect(asked.tag).toBe('needTime');
    if (asked.tag !== 'needTime') return;
    const d = done(asked.resume(t3));
    expect(d.results[0]).toEqual({ t: 'timestamp', v: t3 });
    expect(d.metadata.ledgerTimeBounds).toEqual({ min: t3, max: t3 });
    expect(d.metadata.dependsOnTime).toBe(true);
  });

  it('a ledger time given up front is what getTime reads, without a question', () => {
    const d = done(run('Now', {}, { ledgerTime: t2 }));
    expect(d.results[0]).toEqual({ t: 'timestamp', v: t2 });
    expect(d.metadata.ledgerTimeBounds).toEqual({ min: t2, max: t2 });
  });

  it('a comparison bounds one side: true lowers the upper bound, false raises the lower one', () => {
    const deadline = 1_900_000_000_000_000n; // whole milliseconds: the JSON argument carries them exactly
    const before = done(run('Before', { deadline: iso(deadline) }, { ledgerTime: t0 }));
    expect(before.results[0]).toEqual({ t: 'bool', v: true });
    expect(before.metadata.ledgerTimeBounds).toEqual({ max: deadline - 1n });
    const past = 1_700_000_000_000_000n;
    const after = done(run('Before', { deadline: iso(past) }, { ledgerTime: t0 }));
    expect(after.results[0]).toEqual({ t: 'bool', v: false });
    expect(after.metadata.ledgerTimeBounds).toEqual({ min: past });
    expect(after.metadata.dependsOnTime).toBe(true);
  });

  it('two comparisons bound both sides', () => {
    const from = 1_700_000_000_000_000n;
    const to = 1_900_000_000_000_000n;
    const d = done(run('Within', { start: iso(from), end: iso(to) }, { ledgerTime: t0 }));
    expect(d.results[0]).toEqual({ t: 'bool', v: true });
    expect(d.metadata.ledgerTimeBounds).toEqual({ min: from, max: to - 1n });
  });

  it('a choice that reads no time leaves the bounds unconstrained', () => {
    const d = done(run('Count', { n: '3' }));
    expect(d.metadata.ledgerTimeBounds).toEqual({});
    expect(d.metadata.dependsOnTime).toBe(false);
  });
});

describe('the interpretation budget', () => {
  it('with interruptions on, the engine stops every so many steps and resumes to the same result', () => {
    let x = run('Count', { n: '2000' }, { stepsBetweenInterruptions: 1000 });
    let interruptions = 0;
    while (x.tag === 'interrupted') {
      interruptions++;
      x = x.resume();
    }
    expect(interruptions).toBeGreaterThan(1);
    expect(done(x).results[0]).toEqual(done(run('Count', { n: '2000' })).results[0]);
  });

  it('without interruptions, the engine runs to the end', () => {
    expect(run('Count', { n: '2000' }).tag).toBe('done');
  });

  it('an endless choice ends at the step limit with INTERPRETATION_TIME_EXCEEDED', () => {
    let x = run('Loop', {}, { maxSteps: 50_000, stepsBetweenInterruptions: 10_000 });
    while (x.tag === 'interrupted') x = x.resume();
    expect(x.tag).toBe('error');
    if (x.tag !== 'error') return;
    expect(x.error.code).toBe('INTERPRETATION_TIME_EXCEEDED');
    expect(x.error.message).toBe('Interpretation exceeded the limit of 50000 steps. Interpretation aborted.');
  });
});
