import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithDars } from '../../support/conformance';
import { expectCantonError } from '../../support/canton-error';
import { createdEvents, exercisedEvents, startAmuletLedger, type AmuletLedger } from '../../support/amulet-ledger';
import { INTERFACES } from '../../../testkit/amulet-registry';
import { amuletWallet, DAY_MS, EMPTY_META, iso, type External, type Wallet } from '../../support/amulet-wallet';

/**
 * Canton Coin allocations (splice-amulet 0.1.22's `AmuletAllocation`) through the JSON API alone, as the wallet SDK's
 * allocation example drives them: an external sender allocates Amulet for one leg of a settlement run by a venue
 * (`AllocationFactory_Allocate` on the DSO's `ExternalPartyAmuletRules`, the factory and the registry's context
 * disclosed), which locks the amount in a `LockedAmulet`; the leg is then executed (`Allocation_ExecuteTransfer` by
 * venue, sender and receiver, all three external parties that sign the one prepared transaction), withdrawn by the
 * sender or cancelled by all three, each with the two-step context of the allocation's locked amulet.
 */
describeWithDars('Canton Coin allocations over the JSON API (LEDGERLINE_CONFORMANCE_DARS)', (darsRoot) => {
  let coin: AmuletLedger;
  let wallet: Wallet;
  let dso: string;
  let sender: External;
  let receiver: External;
  let venue: External;
  let settlements = 0;

  beforeAll(async () => {
    coin = await startAmuletLedger(darsRoot);
    wallet = amuletWallet(coin);
    dso = coin.dso;
    sender = await wallet.external('sender');
    receiver = await wallet.external('receiver');
    venue = await wallet.external('venue');
    const tapped = await wallet.tap(sender, '1000.0');
    expect(tapped.status, tapped.text).toBe(200);
  }, 300_000);
  afterAll(async () => {
    await coin?.ledger.close();
  });

  const balance = async (party: External, locked = false) =>
    (await wallet.holdings(party.partyId))
      .filter((h) => (h.lock !== null) === locked)
      .reduce((sum, h) => sum + Number(h.amount), 0);

  /** The sender allocates `amount` for a leg to the receiver of a fresh settlement: the allocation and its locked amulet. */
  async function allocate(amount: string) {
    const before = await balance(sender);
    const factory = await wallet.registry.allocationFactory();
    const settlementId = `settlement-${++settlements}`;
    const allocation = {
      settlement: {
        executor: venue.partyId,
        settlementRef: { id: settlementId, cid: null },
        requestedAt: iso(-60_000),
        allocateBefore: iso(DAY_MS),
        settleBefore: iso(2 * DAY_MS),
        meta: EMPTY_META,
      },
      transferLegId: 'leg-0',
      transferLeg: {
        sender: sender.partyId,
        receiver: receiver.partyId,
        amount,
        instrumentId: { admin: dso, id: 'Amulet' },
        meta: EMPTY_META,
      },
    };
    const unlocked = (await wallet.holdings(sender.partyId)).filter((h) => h.lock === null);
    const choiceArgument = {
      expectedAdmin: dso,
      allocation,
      requestedAt: iso(-60_000),
      inputHoldingCids: unlocked.map((h) => h.contractId),
      extraArgs: { context: factory.choiceContextData, meta: EMPTY_META },
    };
    const command = {
      ExerciseCommand: {
        templateId: INTERFACES.allocationFactory,
        contractId: factory.factoryId,
        choice: 'AllocationFactory_Allocate',
        choiceArgument,
      },
    };
    const r = await wallet.signed([sender], [command], factory.disclosedContracts);
    expect(r.status, r.text).toBe(200);
    const [root] = exercisedEvents(r);
    expect(root).toMatchObject({
      contractId: factory.factoryId,
      choice: 'AllocationFactory_Allocate',
      actingParties: [sender.partyId],
    });
    expect(root.exerciseResult.output.tag).toBe('AllocationInstructionResult_Completed');
    const allocationCid = root.exerciseResult.output.value.allocationCid as string;
    const [created] = createdEvents(r, ':Splice.AmuletAllocation:AmuletAllocation');
    const [locked] = createdEvents(r, ':Splice.Amulet:LockedAmulet');
    expect(created.contractId).toBe(allocationCid);
    expect(created.signatories.sort()).toEqual([dso, sender.partyId].sort());
    expect(created.observers).toEqual([venue.partyId]);
    expect(created.createArgument).toMatchObject({
      lockedAmulet: locked.contractId,
      allocation: { settlement: { executor: venue.partyId, settlementRef: { id: settlementId } } },
    });
    expect(locked.createArgument.lock).toMatchObject({
      holders: [dso],
      optContext: `allocation for settlement of ${settlementId}`,
    });
    expect(await balance(sender)).toBe(before - Number(amount));
    return { allocationCid, lockedCid: locked.contractId as string, before };
  }

  /** A choice of the Allocation interface with the two-step context of the allocation's locked amulet. */
  async function onAllocation(allocationCid: string, lockedCid: string, choice: string) {
    const context = await wallet.registry.twoStepContext(lockedCid);
    const command = {
      ExerciseCommand: {
        templateId: INTERFACES.allocation,
        contractId: allocationCid,
        choice,
        choiceArgument: { extraArgs: { context: context.choiceContextData, meta: EMPTY_META } },
      },
    };
    return { command, disclosed: context.disclosedContracts };
  }

  it('AllocationFactory_Allocate locks the amount; the venue sees the allocation through the Allocation interface', async () => {
    const { allocationCid, lockedCid } = await allocate('40.0');
    expect(await balance(sender, true)).toBe(40);
    const acs = await coin.ledger.call('POST', '/v2/state/active-contracts', {
      activeAtOffset: await wallet.ledgerEnd(),
      eventFormat: {
        filtersByParty: {
          [venue.partyId]: {
            cumulative: [
              {
                identifierFilter: {
                  InterfaceFilter: { value: { interfaceId: INTERFACES.allocation, includeInterfaceView: true } },
                },
              },
            ],
          },
        },
        verbose: true,
      },
    });
    expect(acs.status, acs.text).toBe(200);
    const [entry] = acs.json;
    const view = entry.contractEntry.JsActiveContract.createdEvent.interfaceViews[0].viewValue;
    expect(entry.contractEntry.JsActiveContract.createdEvent.contractId).toBe(allocationCid);
    expect(view.allocation.transferLeg).toMatchObject({
      sender: sender.partyId,
      receiver: receiver.partyId,
      amount: '40.0000000000',
    });
    expect(view.holdingCids).toEqual([lockedCid]);
  });

  it('Allocation_ExecuteTransfer by venue, sender and receiver pays the receiver out of the lock', async () => {
    const { allocationCid, lockedCid } = await allocate('25.0');
    const lockedBefore = await balance(sender, true);
    const execute = await onAllocation(allocationCid, lockedCid, 'Allocation_ExecuteTransfer');
    // without the receiver's authority the choice is refused, and nothing changes
    const end = await wallet.ledgerEnd();
    expectCantonError(
      await wallet.signed([venue, sender], [execute.command], execute.disclosed),
      400,
      'DAML_AUTHORIZATION_ERROR',
    );
    expect(await wallet.ledgerEnd()).toBe(end);
    expect(await wallet.isActive(sender.partyId, lockedCid)).toBe(true);

    const r = await wallet.signed([venue, sender, receiver], [execute.command], execute.disclosed);
    expect(r.status, r.text).toBe(200);
    const [root] = exercisedEvents(r);
    expect(root).toMatchObject({ contractId: allocationCid, choice: 'Allocation_ExecuteTransfer', consuming: true });
    expect(root.actingParties.sort()).toEqual([venue.partyId, sender.partyId, receiver.partyId].sort());
    const received = await wallet.holdings(receiver.partyId);
    expect(received.map((h) => [h.amount, h.lock])).toEqual([['25.0000000000', null]]);
    expect(root.exerciseResult.receiverHoldingCids).toEqual([received[0].contractId]);
    expect(await wallet.isActive(sender.partyId, lockedCid)).toBe(false);
    expect(await wallet.isActive(venue.partyId, allocationCid)).toBe(false);
    expect(await balance(sender, true)).toBe(lockedBefore - 25);
  });

  it('Allocation_Withdraw by the sender and Allocation_Cancel by all three unlock the amount back to the sender', async () => {
    for (const [choice, signers] of [
      ['Allocation_Withdraw', () => [sender]],
      ['Allocation_Cancel', () => [venue, sender, receiver]],
    ] as const) {
      const receiverBefore = await balance(receiver);
      const { allocationCid, lockedCid, before } = await allocate('10.0');
      const lockedBefore = await balance(sender, true);
      const c = await onAllocation(allocationCid, lockedCid, choice);
      if (choice === 'Allocation_Withdraw') {
        // only the sender withdraws: the venue's attempt is refused
        expectCantonError(await wallet.signed([venue], [c.command], c.disclosed), 400, 'DAML_AUTHORIZATION_ERROR');
      }
      const r = await wallet.signed(signers(), [c.command], c.disclosed);
      expect(r.status, r.text).toBe(200);
      expect(exercisedEvents(r)[0]).toMatchObject({ contractId: allocationCid, choice, consuming: true });
      expect(await wallet.isActive(sender.partyId, lockedCid)).toBe(false);
      expect(await balance(sender)).toBe(before);
      expect(await balance(sender, true)).toBe(lockedBefore - 10);
      expect(await balance(receiver)).toBe(receiverBefore);
    }
  });
});
