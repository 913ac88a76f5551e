import { describe, expect, it } from 'vitest';
import type { Value } from '@canton-network/core-ledger-proto';
import { computeUnicum, contractSalt, legacyContractInstanceHash } from '@ledgerline/canton';
import {
  buildTransactionEffects,
  checkWellFormed,
  suffixContractIds,
  transactionShape,
  type WellFormedTransaction,
} from '@ledgerline/domain';
import {
  createNode,
  exerciseNode,
  externalParty,
  fetchNode,
  freshContractId,
  PACKAGE_NAME,
  preparedTransaction,
  rollbackNode,
  TEMPLATE,
  val,
} from '../../../testkit/external-signing';

const SYNC = `global::1220${'ab'.repeat(32)}`;
const alice = externalParty('alice', Buffer.alloc(32, 1)).party;
const bob = externalParty('bob', Buffer.alloc(32, 2)).party;
const SEED = Buffer.alloc(32, 5);
const LET = 1_750_000_000_000_000n;
const SUFFIXED = /^00[0-9a-f]{64}ca121220[0-9a-f]{64}$/;
const cidValue = (contractId: string): Value => ({ sum: { oneofKind: 'contractId', contractId } });
const listOf = (...elements: Value[]): Value => ({ sum: { oneofKind: 'list', list: { elements } } });

const wfOf = (nodes: ReturnType<typeof createNode>[], roots?: string[]) =>
  checkWellFormed(preparedTransaction({ nodes, roots, actAs: [alice], synchronizerId: SYNC }).transaction, {
    singleRoot: false,
  });
const suffix = (wf: WellFormedTransaction, saltSeed = SEED) =>
  suffixContractIds({ wf, ledgerEffectiveTime: LET, synchronizerId: SYNC, saltSeed });
const ref = (contractId: string) => ({ contractId, signatories: [alice], stakeholders: [alice, bob] });

describe('contract ids at commit (suffixContractIds)', () => {
  it('suffixes a created id with the unicum of its salt, ledger time, parties and contract hash', () => {
    const local = freshContractId();
    const wf = wfOf([createNode('0', ref(local))]);
    const { wf: out, suffixed } = suffix(wf);
    const create = (wf.nodes[0].node as { kind: 'create'; create: any }).create;
    const unicum = computeUnicum({
      salt: contractSalt(SEED, 0, SYNC),
      createdAt: LET,
      signatories: [alice],
      stakeholders: [alice, bob],
      contractHash: legacyContractInstanceHash(PACKAGE_NAME, TEMPLATE, create.argument),
    });
    const expected = local + 'ca12' + unicum.toString('hex');
    expect(suffixed).toEqual(new Map([[local, expected]]));
    expect(out.createdContractIds).toEqual([expected]);
    expect(out.nodes[0].node).toMatchObject({ kind: 'create', create: { contractId: expected } });
    // The input is left as it was.
    expect(create.contractId).toBe(local);
  });

  it('is deterministic for a seed; another seed, time or synchronizer gives other ids', () => {
    const wf = wfOf([createNode('0', ref(freshContractId()))]);
    const id = (o: Partial<Parameters<typeof suffixContractIds>[0]> = {}) =>
      suffixContractIds({ wf, ledgerEffectiveTime: LET, synchronizerId: SYNC, saltSeed: SEED, ...o }).wf
        .createdContractIds[0];
    expect(id()).toMatch(SUFFIXED);
    expect(id()).toBe(id());
    expect(id({ saltSeed: Buffer.alloc(32, 6) })).not.toBe(id());
    expect(id({ ledgerEffectiveTime: LET + 1n })).not.toBe(id());
    expect(id({ synchronizerId: `other::1220${'cd'.repeat(32)}` })).not.toBe(id());
  });

  it('rewrites every occurrence of a created id: arguments, exercised and fetched ids, choice arguments, results', () => {
    const [a, b, input] = [freshContractId(), freshContractId(), freshContractId()];
    const holder = {
      ...ref(b),
      argument: val.record({ owner: val.party(alice), refs: listOf(cidValue(a), cidValue(input)) }),
    };
    const parent = exerciseNode('0', {
      ...ref(input),
      actingParties: [alice],
      consuming: false,
      choiceId: 'Spawn',
      children: ['1', '2', '3', '4'],
    });
    const v1 = (parent.versionedNode as any).v1.nodeType.exercise;
    v1.chosenValue = val.record({ hint: cidValue(input) });
    v1.exerciseResult = val.record({ _1: cidValue(a), _2: cidValue(b) });
    const child = exerciseNode('3', { ...ref(a), actingParties: [alice], consuming: true });
    (child.versionedNode as any).v1.nodeType.exercise.chosenValue = val.record({ other: cidValue(b) });
    const wf = wfOf([
      parent,
      createNode('1', ref(a)),
      createNode('2', holder),
      child,
      fetchNode('4', { ...ref(b), actingParties: [alice] }),
    ]);
    const { wf: out, suffixed } = suffix(wf);
    const [sa, sb] = [suffixed.get(a)!, suffixed.get(b)!];
    expect([sa, sb].every((x) => SUFFIXED.test(x))).toBe(true);
    expect(suffixed.has(input)).toBe(false);
    expect(out.inputContractIds).toEqual([input]);
    expect(out.createdContractIds).toEqual([sa, sb]);

    const text = JSON.stringify(out.nodes.map((n) => n.node));
    expect(text).not.toMatch(new RegExp(`"(${a}|${b})"`));
    const [e0, , c2, e3, f4] = out.nodes.map((n) => n.node as any);
    expect(e0.exercise.contractId).toBe(input);
    expect(e0.exercise.chosenValue).toEqual(val.record({ hint: cidValue(input) }));
    expect(e0.exercise.exerciseResult).toEqual(val.record({ _1: cidValue(sa), _2: cidValue(sb) }));
    expect(c2.create.argument).toEqual(
      val.record({ owner: val.party(alice), refs: listOf(cidValue(sa), cidValue(input)) }),
    );
    expect(e3.exercise.contractId).toBe(sa);
    expect(e3.exercise.chosenValue).toEqual(val.record({ other: cidValue(sb) }));
    expect(f4.fetch.contractId).toBe(sb);

    // The holder's suffix is computed over its argument with `a` already suffixed (Canton's order).
    const holderHash = legacyContractInstanceHash(PACKAGE_NAME, TEMPLATE, c2.create.argument);
    const unicum = computeUnicum({
      salt: contractSalt(SEED, 1, SYNC),
      createdAt: LET,
      signatories: [alice],
      stakeholders: [alice, bob],
      contractHash: holderHash,
    });
    expect(sb).toBe(b + 'ca12' + unicum.toString('hex'));

    // The committed effects: created events, the transient contract and the archive are keyed by the suffixed ids.
    const effects = buildTransactionEffects({
      consistency: transactionShape(out)!,
      commandId: 'c',
      ledgerEffectiveTime: LET,
      externalTransactionHash: null,
    });
    const created = effects.transaction.events.flatMap((e) => ('CreatedEvent' in e ? [e.CreatedEvent] : []));
    expect(created.map((c) => [c.contractId, c.acsDelta])).toEqual([
      [sa, false],
      [sb, true],
    ]);
    expect(created[1].createArgument).toEqual({ owner: alice, refs: [sa, input] });
    const blob = Buffer.from(created[0].createdEventBlob, 'base64').toString('latin1');
    expect(blob).toContain(sa);
  });

  it('counts creates under a rollback in the create index, and keeps created ids that already have a suffix', () => {
    const [rolled, kept, third] = [freshContractId(), freshContractId(), freshContractId()];
    const already = freshContractId() + 'ca12' + '1220' + 'ee'.repeat(32);
    const wf = wfOf([
      exerciseNode('0', {
        ...ref(freshContractId()),
        actingParties: [alice],
        consuming: false,
        choiceId: 'Try',
        children: ['1', '3', '4'],
      }),
      rollbackNode('1', ['2']),
      createNode('2', ref(rolled)),
      createNode('3', ref(kept)),
      createNode('4', ref(third)),
    ]);
    const { suffixed } = suffix(wf);
    expect([...suffixed.keys()]).toEqual([rolled, kept, third]);
    // `kept` is create 1 here (the rolled-back create is 0); alone it is create 0: another salt, another id.
    expect(suffixed.get(kept)).not.toBe(suffix(wfOf([createNode('0', ref(kept))])).suffixed.get(kept));

    const pre = wfOf([createNode('0', ref(already))]);
    const out = suffix(pre);
    expect(out.suffixed.size).toBe(0);
    expect(out.wf).toBe(pre);
  });
});
