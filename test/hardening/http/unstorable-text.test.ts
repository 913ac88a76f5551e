import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import { defaultSynchronizer, ledgerEnd } from '../../support/external-party';
import { createUser, registerKeys } from '../../support/external-parties';
import {
  createNode,
  executeRequest,
  externalParty,
  freshContractId,
  preparedTransaction,
  TEMPLATE,
  val,
} from '../../../testkit/external-signing';

/**
 * Text PostgreSQL cannot store (U+0000 in `text` and `jsonb`, an unpaired surrogate in `jsonb`) is refused as 400
 * INVALID_ARGUMENT before the writer: it never reaches a batch, so it neither fails as 503 nor costs its neighbours
 * their group commit, and the ledger is unchanged.
 */
let ledger: TestLedger;
let alice: string;
let sync: string;
const MEMO = '#memo-pkg:Main:Memo';
let n = 0;

beforeAll(async () => {
  ledger = await startTestLedger();
  sync = await defaultSynchronizer(ledger);
  alice = (await ledger.call('POST', '/v2/parties', { partyIdHint: 'alice', synchronizerId: sync })).json.partyDetails
    .party;
  await ledger.call('POST', '/v2/users', {
    user: { id: 'app' },
    rights: [{ kind: { CanActAs: { value: { party: alice } } } }],
  });
});
afterAll(async () => {
  await ledger?.close();
});

const submit = (args: Record<string, unknown>) =>
  ledger.call(
    'POST',
    '/v2/commands/submit-and-wait',
    {
      commands: [{ CreateCommand: { templateId: MEMO, createArguments: { owner: alice, ...args } } }],
      commandId: `c-${n++}`,
      actAs: [alice],
    },
    { as: 'app' },
  );

describe('text PostgreSQL cannot store', () => {
  it.each([
    ['U+0000 in a command argument', { note: 'a\u0000b' }, 'U+0000'],
    ['U+0000 in a record field name', { 'no\u0000te': 'x' }, 'U+0000'],
    ['a lone high surrogate', { note: 'a\ud800b' }, 'U+D800'],
    ['a lone low surrogate', { note: ['ok', '\udc00'] }, 'U+DC00'],
  ])('%s: 400 INVALID_ARGUMENT naming the field, nothing written', async (_, args, char) => {
    const before = await ledgerEnd(ledger);
    const r = await submit(args);
    expect({ status: r.status, code: r.json?.code }, r.text).toEqual({ status: 400, code: 'INVALID_ARGUMENT' });
    expect(r.json.cause).toContain(char);
    expect(r.json.cause).toMatch(/commands\[0\]\.CreateCommand\.createArguments\./);
    expect(await ledgerEnd(ledger)).toBe(before);
  });

  it('a paired surrogate (an emoji), an escaped backslash before u0000 and other escapes are stored', async () => {
    const r = await submit({ note: '😀 \\u0000 \u0001 \t' });
    expect(r.status, r.text).toBe(200);
  });

  it('valid commands in the same batch as refused ones all commit', async () => {
    const before = await ledgerEnd(ledger);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => submit({ note: i % 2 ? 'bad\u0000' : `good ${i}` })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 20 }, (_, i) => (i % 2 ? 400 : 200)));
    expect(await ledgerEnd(ledger)).toBe(before + 10);
  });

  it('in party and user metadata, and in a query body', async () => {
    const party = await ledger.call('POST', '/v2/parties', {
      partyIdHint: 'p1',
      synchronizerId: sync,
      localMetadata: { resourceVersion: '', annotations: { k: 'v\u0000' } },
    });
    expect({ status: party.status, code: party.json?.code }, party.text).toEqual({
      status: 400,
      code: 'INVALID_ARGUMENT',
    });
    const user = await ledger.call('POST', '/v2/users', {
      user: { id: 'u1', primaryParty: '', metadata: { resourceVersion: '', annotations: { 'k\u0000': 'v' } } },
    });
    expect({ status: user.status, code: user.json?.code }, user.text).toEqual({
      status: 400,
      code: 'INVALID_ARGUMENT',
    });
    expect((await ledger.call('GET', '/v2/users/u1')).status).toBe(404);
    const list = await ledger.call('POST', '/v2/updates?limit=1', {
      beginExclusive: 0,
      endInclusive: 1,
      updateFormat: {
        includeTransactions: {
          eventFormat: { filtersByParty: { ['x\u0000']: {} }, verbose: false },
          transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
        },
      },
    });
    expect({ status: list.status, code: list.json?.code }, list.text).toEqual({
      status: 400,
      code: 'INVALID_ARGUMENT',
    });
  });
});

describe('text PostgreSQL cannot store in a prepared transaction (executeAndWait)', () => {
  it('a signed prepared transaction whose create argument holds U+0000: 400 INVALID_ARGUMENT, nothing written', async () => {
    const owner = externalParty('nul-owner');
    await registerKeys(ledger, owner.party, [owner]);
    await createUser(ledger, 'nul-app', [{ kind: 'CanExecuteAs', party: owner.party }]);
    const signed = (note: string) =>
      executeRequest(
        preparedTransaction({
          nodes: [
            createNode('0', {
              contractId: freshContractId(),
              signatories: [owner.party],
              stakeholders: [owner.party],
              argument: val.record({ owner: val.party(owner.party), note: val.text(note) }, TEMPLATE),
            }),
          ],
          actAs: [owner.party],
          synchronizerId: ledger.runtime.identity.synchronizers[0].id,
        }),
        [owner],
      );
    const before = await ledgerEnd(ledger);
    const r = await ledger.call('POST', '/v2/interactive-submission/executeAndWait', signed('a\u0000b'), {
      as: 'nul-app',
    });
    expect({ status: r.status, code: r.json?.code }, r.text).toEqual({ status: 400, code: 'INVALID_ARGUMENT' });
    expect(r.json.cause).toMatch(/prepared_transaction\..*U\+0000/);
    expect(await ledgerEnd(ledger)).toBe(before);
    const ok = await ledger.call('POST', '/v2/interactive-submission/executeAndWait', signed('fine'), {
      as: 'nul-app',
    });
    expect(ok.status, ok.text).toBe(200);
  });
});
