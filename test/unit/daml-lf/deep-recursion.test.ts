/**
 * Deep recursion runs on the machine's explicit stack, never the JavaScript one: non-tail recursion in a choice body's
 * expression and in its update, tens of thousands deep (far beyond Node's default stack of roughly ten thousand frames).
 */
import { describe, expect, it } from 'vitest';
import { Box, alice, bob, doneOf, submit } from './semantics-package';

const onBox = (choice: string, n: number) =>
  submit(
    [
      {
        kind: 'createAndExercise',
        templateId: Box,
        createArgument: { json: { a: alice, b: bob } },
        choice,
        choiceArgument: { json: String(n) },
      },
    ],
    { actAs: [alice] },
  );

describe('deep recursion in choices', () => {
  it('non-tail recursion of a pure function 50,000 deep', () => {
    expect(doneOf(onBox('Sum', 50_000)).results[0]).toEqual({ t: 'int64', v: 1_250_025_000n });
  });

  it('non-tail recursion of an update 50,000 deep', () => {
    expect(doneOf(onBox('CountUp', 50_000)).results[0]).toEqual({ t: 'int64', v: 50_000n });
  });
});
