/**
 * The interpretation's memory budget: builtins and constructors charge the size they build before building it; over
 * budget the evaluation stops with MemoryExceeded (INTERPRETATION_TIME_EXCEEDED at the engine), having built nothing.
 */
import { describe, expect, it } from 'vitest';
import type { Expr } from '@ledgerline/daml-lf';
import { fromInterpretationError as engineError } from '@ledgerline/daml-lf';
import { T, b, call, int, lam, let_, str, v, app, list } from './ast-builders';
import { evalResult, interp } from './eval-helpers';

/** `t` doubled `n` times by APPEND_TEXT (rope strings: cheap to build, costly to explode). */
function doubled(n: number, t: Expr = str('x')): Expr {
  let e = t;
  for (let i = 0; i < n; i++) e = let_([[`t${i}`, T.text, e]], call('APPEND_TEXT', v(`t${i}`), v(`t${i}`)));
  return e;
}

describe('memory budget of an interpretation', () => {
  it('24 doublings of a Text then EXPLODE_TEXT is refused before the list is built', () => {
    const r = interp().evaluate(call('EXPLODE_TEXT', doubled(24)));
    expect(r.tag === 'error' && r.error).toEqual({ tag: 'MemoryExceeded', bytes: 256 * 1024 * 1024 });
  });

  it('is Canton’s INTERPRETATION_TIME_EXCEEDED with the budget in the message', () => {
    const e = engineError({ tag: 'MemoryExceeded', bytes: 256 * 1024 * 1024 });
    expect(e.code).toBe('INTERPRETATION_TIME_EXCEEDED');
    expect(e.message).toContain('exceeded its memory budget of 256 MiB');
  });

  it('a doubling loop stops at the budget long before the step limit', () => {
    const r = interp().evaluate(doubled(40));
    expect(r.tag === 'error' && r.error.tag).toBe('MemoryExceeded');
  });

  it('a smaller budget refuses a 1,000-element EXPLODE_TEXT that a larger one allows', () => {
    const e = call('EXPLODE_TEXT', str('y'.repeat(1000)));
    expect(interp().evaluate(e, { maxMemoryBytes: 10_000 }).tag).toBe('error');
    expect(interp().evaluate(e, { maxMemoryBytes: 1_000_000 }).tag).toBe('done');
  });

  it('Cons cells built one by one are charged: a FOLDR rebuilding a list of 10,000 fails under a 100 KB budget', () => {
    const xs = list(Array.from({ length: 10_000 }, (_, i) => int(i)));
    const rebuild = app(
      b('FOLDR'),
      lam(
        [
          ['x', T.int],
          ['acc', T.list(T.int)],
        ],
        { tag: 'cons', type: T.int, front: [v('x')], tail: v('acc') },
      ),
      { tag: 'nil', type: T.int },
      xs,
    );
    const small = interp().evaluate(rebuild, { maxMemoryBytes: 100_000 });
    expect(small.tag === 'error' && small.error.tag).toBe('MemoryExceeded');
    expect(evalResult(rebuild).tag).toBe('done');
  });
});
