/**
 * Consumption within a transaction: a consuming exercise makes its contract inactive at once (Canton's
 * `PartialTransaction.beginExercises`), for the rest of the transaction — its own choice body and later commands
 * included — and any later use is CONTRACT_NOT_ACTIVE naming the consuming node. Non-consuming choices leave it active.
 */
import { describe, expect, it } from 'vitest';
import { Box, PKG_ID, T, alice, bob, cId, doneOf, errorOf, storedT, submit } from './semantics-package';

const inactive = (cid: string, template: string, node: number) =>
  `Interpretation error: Error: Update failed due to fetch of an inactive contract ${cid} (${template}@${PKG_ID.slice(0, 8)}).\nThe contract had been consumed in sub-transaction #NodeId(${node}):`;
const onBox = (choice: string) =>
  submit(
    [
      {
        kind: 'createAndExercise',
        templateId: Box,
        createArgument: { json: { a: alice, b: bob } },
        choice,
        choiceArgument: { json: {} },
      },
    ],
    { actAs: [alice] },
  );
const kinds = (d: ReturnType<typeof doneOf>) =>
  d.transaction.nodes.map((n) =>
    n.versionedNode.oneofKind === 'v1' ? n.versionedNode.v1.nodeType.oneofKind : undefined,
  );

describe('consumption within a transaction', () => {
  it('a consuming choice cannot fetch its own contract: it is inactive from the exercise node on', () => {
    const e = errorOf(onBox('ConsumeThenFetch'));
    expect(e.code).toBe('CONTRACT_NOT_ACTIVE');
    expect(e.category).toBe(11);
    expect(e.message).toMatch(
      /^Interpretation error: Error: Update failed due to fetch of an inactive contract 00[0-9a-f]{64} \(Extra:Box@c0ffee00\)\.\nThe contract had been consumed in sub-transaction #NodeId\(1\):$/,
    );
    expect(e.resources?.map(([k]) => k)).toEqual(['TEMPLATE_ID', 'CONTRACT_ID']);
  });

  it('a non-consuming choice leaves it active: fetched twice in its body', () => {
    expect(kinds(doneOf(onBox('FetchTwice')))).toEqual(['create', 'exercise', 'fetch', 'fetch']);
  });

  it('a ledger contract consumed by one command is inactive for the next', () => {
    const archive = {
      kind: 'exercise' as const,
      templateId: T,
      contractId: cId,
      choice: 'Archive',
      argument: { json: {} },
    };
    const e = errorOf(submit([archive, archive], { actAs: [alice], ledger: { [cId]: storedT() } }));
    expect(e).toMatchObject({ code: 'CONTRACT_NOT_ACTIVE', message: inactive(cId, 'M:T', 0) });
    expect(e.resources).toEqual([
      ['TEMPLATE_ID', `${PKG_ID}:M:T`],
      ['CONTRACT_ID', cId],
    ]);
    expect(kinds(doneOf(submit([archive], { actAs: [alice], ledger: { [cId]: storedT() } })))).toEqual(['exercise']);
  });
});
