/**
 * The machine: an explicit stack (no JavaScript recursion for deep Daml recursion or long lists), top-level values,
 * closures and partial application, case, exceptions and try/catch, updates run purely.
 */
import { describe, expect, it } from 'vitest';
import type { Expr } from '@ledgerline/daml-lf';
import {
  P,
  T,
  alt,
  app,
  block,
  byName,
  call,
  case_,
  exceptionDef,
  int,
  ite,
  lam,
  let_,
  list,
  module,
  nil,
  pkg,
  proj,
  pure_,
  qn,
  rec,
  record,
  str,
  tcon,
  throw_,
  toAnyExc,
  upd,
  v,
  val,
  valueDef,
  variant,
  dataType,
} from './ast-builders';
import { evalOk, interp, show } from './eval-helpers';

const M = 'Test.Deep';
const errId = qn(M, 'MyError');
const shapeId = qn(M, 'Shape');

// build n acc = if n == 0 then acc else build (n - 1) (n :: acc)
const build = valueDef(
  'build',
  T.arrow(T.int, T.arrow(T.list(T.int), T.list(T.int))),
  lam(
    [
      ['n', T.int],
      ['acc', T.list(T.int)],
    ],
    ite(
      call('EQUAL', v('n'), int(0)),
      v('acc'),
      app(val(M, 'build'), call('SUB_INT64', v('n'), int(1)), {
        tag: 'cons',
        type: T.int,
        front: [v('n')],
        tail: v('acc'),
      }),
    ),
  ),
);
// sumRec xs = case xs of [] -> 0; x :: r -> x + sumRec r      (not tail recursive)
const sumRec = valueDef(
  'sumRec',
  T.arrow(T.list(T.int), T.int),
  lam(
    [['xs', T.list(T.int)]],
    case_(v('xs'), [
      alt(P.nil, int(0)),
      alt(P.cons('x', 'r'), call('ADD_INT64', v('x'), app(val(M, 'sumRec'), v('r')))),
    ]),
  ),
);
// countDown n = if n == 0 then 0 else 1 + countDown (n - 1)
const countDown = valueDef(
  'countDown',
  T.arrow(T.int, T.int),
  lam(
    [['n', T.int]],
    ite(
      call('EQUAL', v('n'), int(0)),
      int(0),
      call('ADD_INT64', int(1), app(val(M, 'countDown'), call('SUB_INT64', v('n'), int(1)))),
    ),
  ),
);
const add = valueDef(
  'add',
  T.arrow(T.int, T.arrow(T.int, T.int)),
  lam(
    [
      ['a', T.int],
      ['b', T.int],
    ],
    call('ADD_INT64', v('a'), v('b')),
  ),
);
const myError = exceptionDef(
  'MyError',
  lam([['e', tcon(errId)]], call('APPEND_TEXT', str('boom: '), proj(errId, 'msg', v('e')))),
);

const testPkg = pkg([
  module(M, {
    dataTypes: byName(
      record('MyError', [['msg', T.text]]),
      dataType('Shape', {
        tag: 'variant',
        constructors: [
          { field: 'Circle', type: T.int },
          { field: 'Square', type: T.int },
        ],
      }),
    ),
    values: byName(build, sumRec, countDown, add),
    exceptions: byName(myError),
  }),
]);

const I = () => interp(testPkg);
const raise = (msg: string) => throw_(tcon(errId), rec(errId, [['msg', str(msg)]]), T.int);

describe('the machine', () => {
  it('folds a 100,000-element list with FOLDL and FOLDR without overflowing the stack', () => {
    const i = I();
    const xs = app(val(M, 'build'), int(100_000), nil());
    const f = lam(
      [
        ['a', T.int],
        ['x', T.int],
      ],
      call('ADD_INT64', v('a'), v('x')),
    );
    expect(show(evalOk(call('FOLDL', f, int(0), xs), i))).toBe(5_000_050_000n);
    expect(
      show(
        evalOk(
          call(
            'FOLDR',
            lam(
              [
                ['x', T.int],
                ['a', T.int],
              ],
              call('ADD_INT64', v('a'), v('x')),
            ),
            int(0),
            xs,
          ),
          i,
        ),
      ),
    ).toBe(5_000_050_000n);
  });

  it('runs non-tail recursion 100,000 deep (list and integer recursion)', () => {
    const i = I();
    expect(show(evalOk(app(val(M, 'sumRec'), app(val(M, 'build'), int(100_000), nil())), i))).toBe(5_000_050_000n);
    expect(show(evalOk(app(val(M, 'countDown'), int(200_000)), i))).toBe(200_000n);
  });

  it('compares and renders long lists iteratively', () => {
    const i = I();
    const xs = app(val(M, 'build'), int(100_000), nil());
    expect(show(evalOk(call('EQUAL', xs, xs), i))).toBe(true);
    expect(show(evalOk(call('LESS', xs, app(val(M, 'build'), int(100_001), nil())), i))).toBe(true);
  });

  it('applies partially and over-applies', () => {
    const i = I();
    expect(
      show(evalOk(let_([['inc', T.arrow(T.int, T.int), app(val(M, 'add'), int(1))]], app(v('inc'), int(41))), i)),
    ).toBe(42n);
    // (\x -> \y -> x - y) 10 3: over-application of a one-parameter closure
    const curried = lam([['x', T.int]], lam([['y', T.int]], call('SUB_INT64', v('x'), v('y'))));
    expect(show(evalOk(app(curried, int(10), int(3)), i))).toBe(7n);
    // a partially applied builtin
    expect(show(evalOk(app(call('ADD_INT64', int(2)), int(3)), i))).toBe(5n);
  });

  it('matches variants, options and lists; a failed match is an internal error', () => {
    const i = I();
    const area = (e: Expr) =>
      case_(e, [
        alt(P.variant(shapeId, 'Circle', 'r'), call('MUL_INT64', int(3), call('MUL_INT64', v('r'), v('r')))),
        alt(P.variant(shapeId, 'Square', 's'), call('MUL_INT64', v('s'), v('s'))),
      ]);
    expect(show(evalOk(area(variant(shapeId, 'Circle', int(2))), i))).toBe(12n);
    expect(show(evalOk(area(variant(shapeId, 'Square', int(2))), i))).toBe(4n);
    // Variants order by constructor rank, then argument.
    expect(show(evalOk(call('LESS', variant(shapeId, 'Square', int(1)), variant(shapeId, 'Circle', int(9))), i))).toBe(
      false,
    );
    const r = i.evaluate(case_(list([]), [alt(P.cons('h', 't'), v('h'))]));
    expect(r.tag === 'error' && r.error.tag).toBe('Internal');
  });

  it('evaluates let bindings sequentially and lazily-compiled top-level values once', () => {
    const i = I();
    expect(
      show(
        evalOk(
          let_(
            [
              ['a', T.int, int(2)],
              ['b', T.int, call('MUL_INT64', v('a'), int(5))],
            ],
            call('ADD_INT64', v('a'), v('b')),
          ),
          i,
        ),
      ),
    ).toBe(12n);
  });
});

describe('exceptions', () => {
  it('an uncaught exception is reported with its type and its message', () => {
    const r = I().evaluate(raise('bad'));
    expect(r.tag).toBe('error');
    if (r.tag === 'error' && r.error.tag === 'UnhandledException') {
      expect(r.error.exceptionType).toEqual(errId);
      expect(r.error.message).toBe('boom: bad');
    } else expect.fail(JSON.stringify(r));
  });

  it('ANY_EXCEPTION_MESSAGE evaluates the exception definition’s message', () => {
    expect(
      show(evalOk(call('ANY_EXCEPTION_MESSAGE', toAnyExc(tcon(errId), rec(errId, [['msg', str('x')]]))), I())),
    ).toBe('boom: x');
  });

  it('try/catch in an update catches, the handler may re-throw by answering None', () => {
    const i = I();
    const tryCatch = (body: Expr, handler: Expr): Expr =>
      upd({ tag: 'tryCatch', returnType: T.int, tryExpr: body, binder: 'e', catchExpr: handler });
    const run = (u: Expr) => i.machine().startUpdate(evalOk(u, i)).run();
    // try (pure (raise "x")) catch e -> Some (pure 7)
    const caught = run(
      tryCatch(upd({ tag: 'embedExpr', type: T.int, body: pure_(raise('x'), T.int) }), {
        tag: 'some',
        type: T.int,
        value: pure_(int(7), T.int),
      }),
    );
    expect(caught.tag === 'done' && show(caught.value)).toBe(7n);
    const rethrown = run(tryCatch(pure_(raise('y'), T.int), { tag: 'none', type: T.int }));
    expect(rethrown.tag === 'error' && rethrown.error.tag === 'UnhandledException' && rethrown.error.message).toBe(
      'boom: y',
    );
    // a block: x <- pure 20; y <- pure 22; pure (x + y)
    const b = block(
      [
        ['x', T.int, pure_(int(20), T.int)],
        ['y', T.int, pure_(int(22), T.int)],
      ],
      pure_(call('ADD_INT64', v('x'), v('y')), T.int),
    );
    const r = run(b);
    expect(r.tag === 'done' && show(r.value)).toBe(42n);
  });

  it('an ArithmeticError can be caught', () => {
    const i = I();
    const u = upd({
      tag: 'tryCatch',
      returnType: T.int,
      tryExpr: pure_(call('DIV_INT64', int(1), int(0)), T.int),
      binder: 'e',
      catchExpr: { tag: 'some', type: T.int, value: pure_(int(-1), T.int) },
    });
    const r = i.machine().startUpdate(evalOk(u, i)).run();
    expect(r.tag === 'done' && show(r.value)).toBe(-1n);
  });

  it('a runaway evaluation is stopped by the step budget', () => {
    const loop = valueDef('loop', T.arrow(T.int, T.int), lam([['n', T.int]], app(val('Test.Loop', 'loop'), v('n'))));
    const i = interp(pkg([module('Test.Loop', { values: byName(loop) })]));
    const r = i.evaluate(app(val('Test.Loop', 'loop'), int(0)), { maxSteps: 100_000 });
    expect(r.tag === 'error' && r.error.tag).toBe('TimeExceeded');
  });
});
