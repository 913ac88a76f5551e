/**
 * Exceptions on the engine, with a package written in Daml-LF text: try/catch and the rollback nodes it leaves (Canton's
 * normal form, `speedy/NormalizeRollbacks.scala`), node ids and seeds around them, FAIL_WITH_STATUS and unhandled
 * exceptions as DAML_FAILURE with the exercise trace (`speedy/Speedy.scala` `transactionTrace`).
 */
import { describe, expect, it } from 'vitest';
import { CompiledPackages, Engine, deriveNodeSeed, type EngineResult, type SubmitContext } from '@ledgerline/daml-lf';
import { parsePackage } from '@ledgerline/daml-lf/testing';
import { EXCEPTIONS_PACKAGE_SRC } from '../../support/exceptions-package';

const PKG_ID = 'e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff00';
const alice = 'alice::1220aaaa';

const pkg = parsePackage(EXCEPTIONS_PACKAGE_SRC, { minor: '2', selfPackageId: PKG_ID });
const noteId = { packageId: PKG_ID, module: 'Ex', name: 'Note' };
const ctx: SubmitContext = {
  actAs: [alice],
  readAs: [],
  submissionSeed: Buffer.alloc(32, 5),
  participantId: 'participant1::1220ffff',
  preparationTime: 1_754_534_109_899_822n,
};
const run = (choice: string): EngineResult =>
  new Engine(new CompiledPackages([pkg])).submit(
    [
      {
        kind: 'createAndExercise',
        templateId: noteId,
        createArgument: { json: { owner: alice, n: '0' } },
        choice,
        choiceArgument: { json: {} },
      },
    ],
    ctx,
  );

function done(r: EngineResult) {
  if (r.tag !== 'done') throw new Error(`expected done, got ${r.tag === 'error' ? JSON.stringify(r.error) : r.tag}`);
  return r;
}
function errorOf(r: EngineResult) {
  if (r.tag !== 'error') throw new Error(`expected an error, got ${r.tag}`);
  return r.error;
}

/** The transaction as `id kind [children]` lines (creates show their `n`). */
function shape(r: ReturnType<typeof done>): string[] {
  return r.transaction.nodes.map((node) => {
    const v = node.versionedNode;
    if (v.oneofKind !== 'v1') throw new Error('not v1');
    const t = v.v1.nodeType;
    switch (t.oneofKind) {
      case 'create': {
        const arg = t.create.argument?.sum;
        const n = arg?.oneofKind === 'record' ? arg.record.fields[1].value?.sum : undefined;
        return `${node.nodeId} create ${n?.oneofKind === 'int64' ? n.int64 : '?'}`;
      }
      case 'exercise':
        return `${node.nodeId} exercise ${t.exercise.choiceId} [${t.exercise.children.join(',')}]`;
      case 'rollback':
        return `${node.nodeId} rollback [${t.rollback.children.join(',')}]`;
      default:
        return `${node.nodeId} ${t.oneofKind}`;
    }
  });
}

describe('try/catch: rollback nodes in Canton’s normal form', () => {
  it('a rollback nested inside a rolled-back scope stays a child of it; ids are pre-order, seeds continue across scopes', () => {
    const d = done(run('Nested'));
    expect(shape(d)).toEqual([
      '0 create 0',
      '1 exercise Nested [2,7]',
      '2 rollback [3,4,6]',
      '3 create 1',
      '4 rollback [5]',
      '5 create 2',
      '6 create 3',
      '7 create 4',
    ]);
    expect(d.transaction.roots).toEqual(['0', '1']);
    // Seeds of creates and exercises, in pre-order; children of the exercise take positions 0..3 whatever scope they sit in.
    expect(d.metadata.nodeSeeds.map((s) => s.nodeId)).toEqual([0, 1, 3, 5, 6, 7]);
    const exerciseSeed = d.metadata.nodeSeeds[1].seed;
    expect(d.metadata.nodeSeeds.slice(2).map((s) => s.seed)).toEqual(
      [0, 1, 2, 3].map((i) => deriveNodeSeed(exerciseSeed, i)),
    );
    expect(d.transaction.nodeSeeds.map((s) => s.nodeId)).toEqual([0, 1, 3, 5, 6, 7]);
  });

  it('a rollback whose first child is a rollback splits into two', () => {
    expect(shape(done(run('Leading')))).toEqual([
      '0 create 0',
      '1 exercise Leading [2,4]',
      '2 rollback [3]',
      '3 create 1',
      '4 rollback [5]',
      '5 create 2',
    ]);
  });

  it('a rollback whose last child is a rollback takes that rollback’s children (a rethrowing handler)', () => {
    expect(shape(done(run('Trailing')))).toEqual([
      '0 create 0',
      '1 exercise Trailing [2]',
      '2 rollback [3,4]',
      '3 create 1',
      '4 create 2',
    ]);
  });

  it('a rollback of a single rollback is that rollback', () => {
    expect(shape(done(run('Single')))).toEqual(['0 create 0', '1 exercise Single [2]', '2 rollback [3]', '3 create 1']);
  });

  it('an empty rollback leaves no node', () => {
    const d = done(run('Empty'));
    expect(shape(d)).toEqual(['0 create 0', '1 exercise Empty [2]', '2 create 1']);
    expect(d.metadata.nodeSeeds[2].seed).toEqual(deriveNodeSeed(d.metadata.nodeSeeds[1].seed, 0));
  });
});

describe('DAML_FAILURE', () => {
  const trace = (...lines: string[]) => lines.map((l) => `    ${l}\n`).join('');
  const short = PKG_ID.slice(0, 8);

  it('an unhandled exception: error id UNHANDLED_EXCEPTION/<Module>:<Name>, category 9, the message, the exercise trace', () => {
    const r = run('Unhandled');
    const e = errorOf(r);
    expect(e).toMatchObject({
      code: 'DAML_FAILURE',
      category: 9,
      message:
        'Interpretation error: Error: User failure: UNHANDLED_EXCEPTION/Ex:Boom (error category 9): nobody catches this',
    });
    expect(e.metadata).toEqual({
      error_id: 'UNHANDLED_EXCEPTION/Ex:Boom',
      exercise_trace: expect.stringMatching(
        new RegExp(
          `^    in choice ${short}:Ex:Note:Unhandled on contract 00[0-9a-f]{8} \\(#1\\)\n    in create-and-exercise command ${short}:Ex:Note:Unhandled\\.\n$`,
        ),
      ),
    });
  });

  it('FAIL_WITH_STATUS: the status’s error id, category and metadata; error_id cannot be overridden', () => {
    const e = errorOf(run('Status'));
    expect(e).toMatchObject({
      code: 'DAML_FAILURE',
      category: 8,
      message:
        'Interpretation error: Error: User failure: LEDGERLINE_TEST_FAILURE (error category 8): the status message',
    });
    expect(e.metadata).toMatchObject({ k1: 'v1', k2: 'v2', error_id: 'LEDGERLINE_TEST_FAILURE' });
    expect(Object.keys(e.metadata!)).toEqual(['k1', 'k2', 'error_id', 'exercise_trace']);
  });

  it('FAIL_WITH_STATUS is not caught by try', () => {
    expect(errorOf(run('StatusInTry'))).toMatchObject({ code: 'DAML_FAILURE', metadata: { error_id: 'CAUGHT_NOT' } });
  });

  it('the trace names the open exercises innermost first, with the ids they took (a try scope takes one too)', () => {
    const e = errorOf(run('Deep'));
    // create (0), exercise Deep (1), try (2), create (3), exercise Unhandled (4), create (5)
    const cid = /on contract (00[0-9a-f]{8})/.exec(e.metadata!.exercise_trace)![1];
    expect(e.metadata!.exercise_trace).toBe(
      trace(
        `in choice ${short}:Ex:Note:Unhandled on contract ${cid} (#4)`,
        `in choice ${short}:Ex:Note:Deep on contract ${cid} (#1)`,
        `in create-and-exercise command ${short}:Ex:Note:Deep.`,
      ),
    );
  });

  it('an exception thrown while computing the message names the original exception', () => {
    const e = errorOf(run('BadMessage'));
    expect(e.metadata!.error_id).toBe('UNHANDLED_EXCEPTION/Ex:BadMessage');
    expect(e.message).toBe(
      'Interpretation error: Error: User failure: UNHANDLED_EXCEPTION/Ex:BadMessage (error category 9): <Failed to calculate message as Ex:Boom was thrown during conversion>',
    );
  });

  it('an exception in a choice’s controllers is not caught by an enclosing try', () => {
    const e = errorOf(run('CatchControllers'));
    expect(e).toMatchObject({
      code: 'DAML_FAILURE',
      message: expect.stringContaining('UNHANDLED_EXCEPTION/Ex:Boom (error category 9): in the controllers'),
    });
    // create (0), exercise CatchControllers (1), try (2): BadControllers never began
    expect(e.metadata!.exercise_trace).toMatch(
      /^ {4}in choice \w{8}:Ex:Note:CatchControllers on contract 00\w{8} \(#1\)\n {4}in create-and-exercise/,
    );
  });

  it('an exercise command: the trace ends with the command and the contract id cut to 10 characters', () => {
    const engine = new Engine(new CompiledPackages([pkg]));
    const created = done(
      engine.submit([{ kind: 'create', templateId: noteId, argument: { json: { owner: alice, n: '7' } } }], ctx),
    ).transaction.nodes[0].versionedNode;
    if (created.oneofKind !== 'v1' || created.v1.nodeType.oneofKind !== 'create') throw new Error('not a create');
    const c = created.v1.nodeType.create;
    const r = engine.submit(
      [{ kind: 'exercise', templateId: noteId, contractId: c.contractId, choice: 'Unhandled', argument: { json: {} } }],
      ctx,
    );
    if (r.tag !== 'needContract') throw new Error(`expected a contract question, got ${r.tag}`);
    const e = errorOf(
      r.resume({
        contractId: c.contractId,
        templateId: noteId,
        packageName: 'exceptions-test',
        argument: c.argument!,
        signatories: [alice],
        stakeholders: [alice],
        createdAt: 0n,
      }),
    );
    const cid = c.contractId.slice(0, 10);
    expect(e.metadata!.exercise_trace).toBe(
      trace(
        `in choice ${short}:Ex:Note:Unhandled on contract ${cid} (#0)`,
        `in exercise command ${short}:Ex:Note:Unhandled on contract ${cid}.`,
      ),
    );
  });
});
