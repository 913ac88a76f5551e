import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreparedTransaction } from '@canton-network/core-ledger-proto';
import { encodeDar, parsePackage } from '@ledgerline/daml-lf/testing';
import { expectCantonError } from '../../support/canton-error';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import { ledgerEnd } from '../../support/external-party';
import { EXCEPTIONS_PACKAGE_SRC } from '../../support/exceptions-package';

/**
 * Explicit disclosure over HTTP: alice creates an `Ex:Offer` (only she is a stakeholder) and hands its created-event blob
 * to bob, who exercises choices he controls on it with the blob in `disclosedContracts` — on submit-and-wait, async submit
 * and prepare (whose metadata lists the disclosed contract as an input). Validation as Canton's
 * ValidateDisclosedContracts.scala and StoreBackedCommandInterpreter.scala; an archived disclosed contract is refused at
 * commit (a rejected completion).
 */
let ledger: TestLedger;
let sync: string;
let alice: string;
let bob: string;
let offerId: string;
let noteTemplate: string;
let n = 0;

const OTHER_SYNC = `other::1220${'ab'.repeat(32)}`;
const withBlobs = {
  cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: true } } } }],
};
const effects = (party: string) => ({
  eventFormat: { filtersByParty: { [party]: withBlobs } },
  transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
});

interface Offer {
  contractId: string;
  blob: string;
}

async function createOffer(note: string): Promise<Offer> {
  const r = await ledger.call(
    'POST',
    '/v2/commands/submit-and-wait-for-transaction',
    {
      commands: {
        commands: [{ CreateCommand: { templateId: offerId, createArguments: { owner: alice, note } } }],
        commandId: `offer-${n++}`,
        actAs: [alice],
      },
      transactionFormat: effects(alice),
    },
    { as: 'alice-app' },
  );
  expect(r.status, r.text).toBe(200);
  const created = r.json.transaction.events[0].CreatedEvent;
  return { contractId: created.contractId, blob: created.createdEventBlob };
}

const exercise = (o: Offer, choice: 'Look' | 'Take') => ({
  ExerciseCommand: { templateId: offerId, contractId: o.contractId, choice, choiceArgument: { taker: bob } },
});
const disclosed = (o: Offer, over: Record<string, unknown> = {}) => ({
  contractId: o.contractId,
  templateId: offerId,
  createdEventBlob: o.blob,
  synchronizerId: sync,
  ...over,
});
const bobCommands = (cmds: unknown[], disclosedContracts: unknown[], over: Record<string, unknown> = {}) => ({
  commands: cmds,
  commandId: `bob-${n++}`,
  actAs: [bob],
  disclosedContracts,
  ...over,
});

beforeAll(async () => {
  ledger = await startTestLedger();
  sync = ledger.runtime.identity.defaultSynchronizer.id;
  const party = async (hint: string) =>
    (await ledger.call('POST', '/v2/parties', { partyIdHint: hint, synchronizerId: sync })).json.partyDetails
      .party as string;
  alice = await party('alice');
  bob = await party('bob');
  const rights = (p: string) => [
    { kind: { CanActAs: { value: { party: p } } } },
    { kind: { CanReadAs: { value: { party: p } } } },
  ];
  await ledger.call('POST', '/v2/users', { user: { id: 'alice-app' }, rights: rights(alice) });
  await ledger.call('POST', '/v2/users', { user: { id: 'bob-app' }, rights: rights(bob) });
  const { dar, main } = await encodeDar(parsePackage(EXCEPTIONS_PACKAGE_SRC, { minor: '2' }));
  const up = await fetch(`${ledger.url}/v2/dars?vetAllPackages=true&synchronizerId=${encodeURIComponent(sync)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await ledger.token()}` },
    body: dar,
  });
  expect(up.status, await up.text()).toBe(200);
  offerId = `${main.packageId}:Ex:Offer`;
  noteTemplate = `${main.packageId}:Ex:Note`;
});
afterAll(async () => {
  await ledger?.close();
});

describe('a contract the submitters cannot see', () => {
  it('is not found without its blob, and used with it (a nonconsuming choice on submit-and-wait)', async () => {
    const offer = await createOffer('look at me');
    const hidden = await ledger.call(
      'POST',
      '/v2/commands/submit-and-wait',
      bobCommands([exercise(offer, 'Look')], []),
      { as: 'bob-app' },
    );
    expect({ status: hidden.status, code: hidden.json.code }, hidden.text).toEqual({
      status: 404,
      code: 'CONTRACT_NOT_FOUND',
    });

    const r = await ledger.call(
      'POST',
      '/v2/commands/submit-and-wait-for-transaction',
      { commands: bobCommands([exercise(offer, 'Look')], [disclosed(offer)]), transactionFormat: effects(bob) },
      { as: 'bob-app' },
    );
    expect(r.status, r.text).toBe(200);
    expect(r.json.transaction.events).toHaveLength(1);
    expect(r.json.transaction.events[0].ExercisedEvent).toMatchObject({
      contractId: offer.contractId,
      choice: 'Look',
      consuming: false,
      actingParties: [bob],
      exerciseResult: 'look at me',
    });
    // The offer stays alice's and active.
    const acs = await ledger.call(
      'POST',
      '/v2/state/active-contracts',
      { eventFormat: { filtersByParty: { [alice]: withBlobs } }, activeAtOffset: r.json.transaction.offset },
      { as: 'alice-app' },
    );
    expect(
      (acs.json as Array<Record<string, any>>).map((c) => c.contractEntry.JsActiveContract.createdEvent.contractId),
    ).toContain(offer.contractId);
  });

  it('a consuming choice on async submit archives it; the disclosed contract then is refused at commit', async () => {
    const offer = await createOffer('take me');
    const r = await ledger.call(
      'POST',
      '/v2/commands/async/submit',
      bobCommands([exercise(offer, 'Take')], [disclosed(offer)]),
      { as: 'bob-app' },
    );
    expect(r.status, r.text).toBe(200);
    const acs = async (p: string, as: string) =>
      (
        (
          await ledger.call(
            'POST',
            '/v2/state/active-contracts',
            { eventFormat: { filtersByParty: { [p]: withBlobs } }, activeAtOffset: await ledgerEnd(ledger) },
            { as },
          )
        ).json as Array<Record<string, any>>
      ).map((c) => c.contractEntry.JsActiveContract.createdEvent);
    expect((await acs(alice, 'alice-app')).map((c) => c.contractId)).not.toContain(offer.contractId);
    expect(
      (await acs(bob, 'bob-app')).filter((c) => c.templateId === noteTemplate).map((c) => c.createArgument),
    ).toContainEqual({ owner: bob, n: '1' });

    // The same blob once more: interpretation succeeds (the blob is the contract), the commit refuses the archived input.
    const before = await ledgerEnd(ledger);
    const again = await ledger.call(
      'POST',
      '/v2/commands/submit-and-wait',
      bobCommands([exercise(offer, 'Take')], [disclosed(offer)]),
      { as: 'bob-app' },
    );
    expect({ status: again.status, code: again.json.code }, again.text).toEqual({
      status: 404,
      code: 'LOCAL_VERDICT_INACTIVE_CONTRACTS',
    });
    expect(await ledgerEnd(ledger)).toBe(before + 1); // a rejected completion
  });

  it('prepare lists the disclosed contract among the input contracts', async () => {
    const offer = await createOffer('prepared');
    const r = await ledger.call(
      'POST',
      '/v2/interactive-submission/prepare',
      bobCommands([exercise(offer, 'Look')], [disclosed(offer)]),
      { as: 'bob-app' },
    );
    expect(r.status, r.text).toBe(200);
    const pt = PreparedTransaction.fromBinary(Buffer.from(r.json.preparedTransaction, 'base64'));
    const inputs = pt.metadata!.inputContracts;
    expect(inputs).toHaveLength(1);
    expect(inputs[0].contract.oneofKind === 'v1' && inputs[0].contract.v1.contractId).toBe(offer.contractId);
    expect(Buffer.from(inputs[0].eventBlob).toString('base64')).toBe(offer.blob);
    expect(pt.metadata!.synchronizerId).toBe(sync);
  });
});

describe('validation', () => {
  let offer: Offer;
  let other: Offer;
  beforeAll(async () => {
    offer = await createOffer('first');
    other = await createOffer('second');
  });

  async function refused(
    body: unknown,
    status: number,
    code: string,
    cause?: string,
    path = '/v2/commands/submit-and-wait',
  ) {
    const before = await ledgerEnd(ledger);
    const r = await ledger.call('POST', path, body, { as: 'bob-app' });
    expectCantonError(r, status, code, { cause });
    expect(await ledgerEnd(ledger)).toBe(before);
  }

  it('a blob is required and must decode', async () => {
    await refused(
      bobCommands([exercise(offer, 'Look')], [disclosed(offer, { createdEventBlob: '' })]),
      400,
      'MISSING_FIELD',
      'The submitted command is missing a mandatory field: DisclosedContract.createdEventBlob',
    );
    await refused(
      bobCommands(
        [exercise(offer, 'Look')],
        [disclosed(offer, { createdEventBlob: Buffer.from('not a contract').toString('base64') })],
      ),
      400,
      'INVALID_ARGUMENT',
    );
  });

  for (const path of ['/v2/commands/submit-and-wait', '/v2/interactive-submission/prepare']) {
    it(`the stated contract id and template id must be the blob's (${path})`, async () => {
      await refused(
        bobCommands([exercise(offer, 'Look')], [disclosed(offer, { contractId: other.contractId })]),
        400,
        'INVALID_ARGUMENT',
        `The submitted request has invalid arguments: Mismatch between DisclosedContract.contract_id (${other.contractId}) and contract_id from decoded DisclosedContract.created_event_blob (${offer.contractId})`,
        path,
      );
      await refused(
        bobCommands([exercise(offer, 'Look')], [disclosed(offer, { templateId: noteTemplate })]),
        400,
        'INVALID_ARGUMENT',
        `The submitted request has invalid arguments: Mismatch between DisclosedContract.template_id (${noteTemplate}) and template_id from decoded DisclosedContract.created_event_blob (${offerId})`,
        path,
      );
    });
  }

  it('used disclosed contracts must name one synchronizer, the prescribed one if any', async () => {
    await refused(
      bobCommands(
        [exercise(offer, 'Look'), exercise(other, 'Look')],
        [disclosed(offer), disclosed(other, { synchronizerId: OTHER_SYNC })],
      ),
      400,
      'DISCLOSED_CONTRACTS_SYNCHRONIZER_ID_MISMATCH',
      `Some disclosed contracts that were used during command interpretation have mismatching synchronizer ids: Map(ContractId(${offer.contractId}) -> ${sync}, ContractId(${other.contractId}) -> ${OTHER_SYNC})`,
    );
    await refused(
      bobCommands([exercise(other, 'Look')], [disclosed(other, { synchronizerId: OTHER_SYNC })], {
        synchronizerId: sync,
      }),
      400,
      'PRESCRIBED_SYNCHRONIZER_ID_MISMATCH',
      `The target synchronizer=${sync} specified in the command submission mismatches the synchronizer id=${OTHER_SYNC} of some attached disclosed contracts that have been used in the submission (used-disclosed-contract-ids=Set(ContractId(${other.contractId})))`,
    );
    // A disclosed contract that is not used does not count.
    const r = await ledger.call(
      'POST',
      '/v2/commands/submit-and-wait',
      bobCommands([exercise(offer, 'Look')], [disclosed(offer), disclosed(other, { synchronizerId: OTHER_SYNC })]),
      { as: 'bob-app' },
    );
    expect(r.status, r.text).toBe(200);
  });
});
