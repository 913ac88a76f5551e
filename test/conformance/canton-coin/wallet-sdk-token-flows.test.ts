import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithDars } from '../../support/conformance';
import { createTestDatabase } from '../../support/database';
import { TEST_JWT_SECRET } from '../../support/ledger';
import { callJson, scopeToken, startServerProcess, type ServerProcess } from '../../support/server-process';
import { waitFor } from '../../support/wait-for';
import { WALLET_DAR } from '../../support/canton-coin';

/**
 * The unmodified wallet SDK (`@canton-network/wallet-sdk` 1.4.0) against the built server started with the Canton Coin
 * development profile, as `npm start` runs it (a process, wall-clock time), driving the token-standard flows of the SDK's
 * own examples (splice-wallet-kernel `docs/wallet-integration-guide/examples/scripts`: 02-two-step-transfer, 04, 05-preapproval,
 * 06-merge-utxos): external parties onboarded, a tap, a one-step transfer to a receiver with a transfer preapproval
 * (accepted by the validator's automation; then renewed and cancelled), two-step transfers accepted, rejected and
 * withdrawn, an allocation made, listed and withdrawn, and one executed (a leg whose sender, receiver and executor are
 * the same party: Allocation_ExecuteTransfer needs all three, and one external party signs alone), holdings listed and
 * merged, and the history read back through the SDK's `token.holdings` and
 * `token.transactionsById` (`@canton-network/core-tx-parser`). The SDK is configured as its examples configure it for a
 * LocalNet: the validator at `<ledger>/api/validator`, the registry at its scan proxy.
 *
 * The flows share one ledger and run in order; each `it` states the balances it expects after it. The development
 * configuration charges no transfer fees, so amounts are exact.
 */
const VALIDATOR_USER = 'validator';
const silent = () => undefined;

/**
 * `token.utxos.merge` calls `Object.groupBy` (ES2024: Node 21 and later); this repository runs on Node 20.19 too, where it
 * is missing. The standard function (a null-prototype object of arrays, keys in first-seen order) is installed when
 * absent; the SDK itself is unchanged.
 */
function ensureObjectGroupBy(): void {
  const O = Object as unknown as { groupBy?: unknown };
  if (typeof O.groupBy === 'function') return;
  Object.defineProperty(Object, 'groupBy', {
    configurable: true,
    writable: true,
    value: <T>(items: Iterable<T>, key: (item: T, index: number) => PropertyKey) => {
      const groups: Record<PropertyKey, T[]> = Object.create(null);
      let i = 0;
      for (const item of items) (groups[key(item, i++)] ??= []).push(item);
      return groups;
    },
  });
}

type Keys = { publicKey: string; privateKey: string };
type Party = { partyId: string; keys: Keys };

describeWithDars(
  'wallet SDK token-standard flows against `npm start` with the Canton Coin profile (LEDGERLINE_CONFORMANCE_DARS)',
  (darsRoot) => {
    let server: ServerProcess;
    let sdk: any;
    let registryUrl: URL;
    let alice: Party;
    let bob: Party;
    let carol: Party;
    let dso: string;
    /** Update ids of the flows, for the history checks. */
    const updates: Record<string, string> = {};

    /** prepare → sign → execute by `party`, as every example submits. */
    const submit = async (party: Party, [commands, disclosedContracts]: [unknown, unknown[]]) =>
      (await sdk.ledger
        .prepare({ partyId: party.partyId, commands, disclosedContracts })
        .sign(party.keys.privateKey)
        .execute({ partyId: party.partyId })) as {
        updateId: string;
        completionOffset: number;
      };
    /** All of a party's holdings, locked ones included. */
    const holdings = async (party: Party) =>
      (await sdk.token.utxos.list({ partyId: party.partyId, includeLocked: true })) as any[];
    /** The holdings the examples list: the SDK's default leaves out locked ones. */
    const unlocked = async (party: Party) => (await sdk.token.utxos.list({ partyId: party.partyId })) as any[];
    const amounts = (hs: any[]) => hs.map((h) => h.interfaceViewValue.amount as string).sort();
    const total = (hs: any[]) => hs.reduce((sum, h) => sum + Number(h.interfaceViewValue.amount), 0);
    /** The sum of a history's holding changes (the parser leaves out a summary's `amountChange` when it is zero). */
    const netChange = (history: { transactions: any[] }) =>
      history.transactions
        .flatMap((t) => t.events)
        .flatMap((e: any) => [...e.unlockedHoldingsChangeSummaries, ...e.lockedHoldingsChangeSummaries])
        .reduce((sum: number, s: any) => sum + Number(s.amountChange ?? 0), 0);
    const transferTo = (sender: Party, recipient: Party, amount: string, memo?: string) =>
      sdk.token.transfer.create({
        sender: sender.partyId,
        recipient: recipient.partyId,
        amount,
        instrumentId: 'Amulet',
        registryUrl,
        ...(memo ? { memo } : {}),
      });

    beforeAll(async () => {
      ensureObjectGroupBy();
      const { url: databaseUrl } = await createTestDatabase();
      server = await startServerProcess({
        DATABASE_URL: databaseUrl,
        LEDGER_JWT_SECRET: TEST_JWT_SECRET,
        LEDGER_CANTON_COIN: 'dev',
        // as the README starts it: splice-wallet carries splice-amulet
        LEDGER_CANTON_COIN_DARS: path.join(darsRoot, WALLET_DAR),
      });
      const admin = await scopeToken();
      const participant = await callJson(server.url, 'GET', '/v2/parties/participant-id', admin);
      expect(participant.status, JSON.stringify(participant.json)).toBe(200);
      // The profile sets itself up after start: the validator user and the DSO's rules answer once it is done.
      await waitFor(
        async () =>
          (await callJson(server.url, 'GET', '/api/validator/v0/scan-proxy/amulet-rules', admin)).status === 200,
        {
          timeoutMs: 120_000,
          intervalMs: 100,
          message: 'the Canton Coin profile serving AmuletRules',
        },
      );

      const validatorUrl = `${server.url}/api/validator`;
      const registry = `${validatorUrl}/v0/scan-proxy`;
      registryUrl = new URL(registry);
      // The examples' app user is the validator operator's user: internal submissions act as the validator party.
      const auth = {
        method: 'self_signed' as const,
        issuer: 'unsafe-auth',
        credentials: {
          clientId: VALIDATOR_USER,
          clientSecret: TEST_JWT_SECRET,
          audience: `https://daml.com/jwt/aud/participant/${participant.json.participantId}`,
          scope: '',
        },
      };
      const { SDK, CustomLogAdapter } = await import('@canton-network/wallet-sdk');
      sdk = await SDK.create({
        auth,
        ledgerClientUrl: server.url,
        logAdapter: new CustomLogAdapter(silent),
        amulet: { validatorUrl, scanApiUrl: `${server.url}/api/scan`, registryUrl: registry, auth },
        token: { validatorUrl, registries: [registry], auth },
        asset: { registries: [registry], auth },
      });
    }, 180_000);

    afterAll(async () => {
      await server?.stop();
    });

    it('onboards three external parties (party.external.create → sign → execute)', async () => {
      const onboard = async (partyHint: string): Promise<Party> => {
        const keys = sdk.keys.generate() as Keys;
        const party = await sdk.party.external.create(keys.publicKey, { partyHint }).sign(keys.privateKey).execute();
        return { partyId: party.partyId, keys };
      };
      [alice, bob, carol] = await Promise.all(['sdk-alice', 'sdk-bob', 'sdk-carol'].map(onboard));
      for (const [p, hint] of [
        [alice, 'sdk-alice'],
        [bob, 'sdk-bob'],
        [carol, 'sdk-carol'],
      ] as const) {
        expect(p.partyId).toMatch(new RegExp(`^${hint}::1220[0-9a-f]{64}$`));
        const details = await callJson(
          server.url,
          'GET',
          `/v2/parties/${encodeURIComponent(p.partyId)}`,
          await scopeToken(),
        );
        expect(details.json.partyDetails.map((d: any) => d.party)).toEqual([p.partyId]);
      }
    }, 60_000);

    it('lists Canton Coin as the registry’s asset, administered by the DSO', async () => {
      const amulet = await sdk.asset.find('Amulet', registryUrl);
      expect(amulet).toMatchObject({ id: 'Amulet', registryUrl });
      dso = amulet.admin;
      expect(dso).toMatch(/::1220[0-9a-f]{64}$/);
    });

    it('taps 10000 Amulet for alice (amulet.tap → prepare → execute); her holding lists it', async () => {
      const executed = await submit(alice, await sdk.amulet.tap(alice.partyId, '10000'));
      updates.tap = executed.updateId;
      const hs = await holdings(alice);
      expect(hs).toHaveLength(1);
      expect(hs[0].interfaceViewValue).toMatchObject({
        owner: alice.partyId,
        amount: '10000.0000000000',
        instrumentId: { admin: dso, id: 'Amulet' },
        lock: null,
      });
    }, 60_000);

    it('one-step transfer: carol’s preapproval is accepted by the validator, alice pays her 2000 directly', async () => {
      const create = await sdk.amulet.preapproval.command.create({ parties: { receiver: carol.partyId } });
      await submit(carol, [create, []]);
      const status = await sdk.amulet.preapproval.fetchStatus(carol.partyId, { intervalMs: 100, timeoutMs: 60_000 });
      expect(status).toMatchObject({ dso, contractId: expect.stringMatching(/^00[0-9a-f]+$/) });
      expect(status.expiresAt.getTime()).toBeGreaterThan(Date.now());

      const executed = await submit(alice, await transferTo(alice, carol, '2000', 'one-step'));
      updates.oneStep = executed.updateId;
      expect(await sdk.token.transfer.pending(carol.partyId)).toEqual([]);
      expect(amounts(await holdings(carol))).toEqual(['2000.0000000000']);
      expect(total(await holdings(alice))).toBe(8000);
    }, 90_000);

    it('carol’s preapproval renewed by the validator (amulet.preapproval.renew), then cancelled by carol', async () => {
      // The renewal is paid from the provider's holdings: the validator taps for itself first (amulet.tapInternal,
      // submitted as the validator party), as a LocalNet validator holds Amulet from its rewards.
      const tapped = await sdk.amulet.tapInternal('1000');
      expect(tapped.updateId).toMatch(/^1220[0-9a-f]{64}$/);
      const before = await sdk.amulet.preapproval.fetchStatus(carol.partyId, { intervalMs: 100, timeoutMs: 60_000 });
      const expiresAt = new Date(before.expiresAt);
      expiresAt.setDate(expiresAt.getDate() + 2);
      const renewed = await sdk.amulet.preapproval.renew({ parties: { receiver: carol.partyId }, expiresAt });
      expect(renewed.updateId).toMatch(/^1220[0-9a-f]{64}$/);
      const after = await sdk.amulet.preapproval.fetchStatus(carol.partyId, {
        oldCid: before.contractId,
        intervalMs: 100,
        timeoutMs: 60_000,
      });
      expect(after.contractId).not.toBe(before.contractId);
      expect(after.expiresAt.toISOString()).toBe(expiresAt.toISOString());

      const [cancel, disclosed] = await sdk.amulet.preapproval.command.cancel({ parties: { receiver: carol.partyId } });
      expect(cancel.ExerciseCommand).toMatchObject({
        contractId: after.contractId,
        choice: 'TransferPreapproval_Cancel',
      });
      await submit(carol, [cancel, disclosed]);
      expect(
        await sdk.amulet.preapproval.fetchStatus(carol.partyId, {
          cancelled: true,
          intervalMs: 100,
          timeoutMs: 60_000,
        }),
      ).toBeNull();
      expect(await sdk.amulet.preapproval.fetchQuick(carol.partyId)).toBeNull();
    }, 90_000);

    it('two-step transfer accepted: bob (no preapproval) accepts alice’s 2000', async () => {
      await submit(alice, await transferTo(alice, bob, '2000', 'two-step accepted'));
      const pending = await sdk.token.transfer.pending(bob.partyId);
      expect(pending).toHaveLength(1);
      expect(pending[0].interfaceViewValue.transfer).toMatchObject({
        sender: alice.partyId,
        receiver: bob.partyId,
        amount: '2000.0000000000',
      });
      // Until accepted, alice's 2000 are locked: listed with the locked holdings, not without.
      expect(total(await holdings(alice))).toBe(8000);
      expect(total(await unlocked(alice))).toBe(6000);

      const executed = await submit(
        bob,
        await sdk.token.transfer.accept({ transferInstructionCid: pending[0].contractId, registryUrl }),
      );
      updates.accepted = executed.updateId;
      expect(await sdk.token.transfer.pending(bob.partyId)).toEqual([]);
      expect(amounts(await holdings(bob))).toEqual(['2000.0000000000']);
      expect(total(await holdings(alice))).toBe(6000);
    }, 60_000);

    it('two-step transfer rejected: bob rejects alice’s 1000, which she has back', async () => {
      await submit(alice, await transferTo(alice, bob, '1000', 'two-step rejected'));
      const [instruction] = await sdk.token.transfer.pending(bob.partyId);
      expect(instruction.interfaceViewValue.transfer.amount).toBe('1000.0000000000');
      expect(total(await unlocked(alice))).toBe(5000);
      const executed = await submit(
        bob,
        await sdk.token.transfer.reject({ transferInstructionCid: instruction.contractId, registryUrl }),
      );
      updates.rejected = executed.updateId;
      expect(await sdk.token.transfer.pending(bob.partyId)).toEqual([]);
      expect(total(await unlocked(alice))).toBe(6000);
      expect(amounts(await holdings(bob))).toEqual(['2000.0000000000']);
    }, 60_000);

    it('two-step transfer withdrawn: alice withdraws her 500 before bob acts', async () => {
      await submit(alice, await transferTo(alice, bob, '500', 'two-step withdrawn'));
      const [instruction] = await sdk.token.transfer.pending(alice.partyId);
      expect(instruction.interfaceViewValue.transfer).toMatchObject({
        receiver: bob.partyId,
        amount: '500.0000000000',
      });
      const executed = await submit(
        alice,
        await sdk.token.transfer.withdraw({ transferInstructionCid: instruction.contractId, registryUrl }),
      );
      updates.withdrawn = executed.updateId;
      expect(await sdk.token.transfer.pending(bob.partyId)).toEqual([]);
      expect(await sdk.token.transfer.pending(alice.partyId)).toEqual([]);
      expect(total(await unlocked(alice))).toBe(6000);
    }, 60_000);

    it('allocation: alice allocates 100 for a settlement carol executes, lists it, and withdraws it', async () => {
      const amulet = await sdk.asset.find('Amulet', registryUrl);
      const now = Date.now();
      const settlement = {
        executor: carol.partyId,
        settlementRef: { id: 'sdk-settlement-1', cid: null },
        requestedAt: new Date(now - 60_000).toISOString(),
        allocateBefore: new Date(now + 3_600_000).toISOString(),
        settleBefore: new Date(now + 7_200_000).toISOString(),
        meta: { values: {} },
      };
      const transferLeg = {
        sender: alice.partyId,
        receiver: bob.partyId,
        amount: '100',
        instrumentId: { admin: amulet.admin, id: 'Amulet' },
        meta: { values: {} },
      };
      const executed = await submit(
        alice,
        await sdk.token.allocation.instruction.create({
          allocationSpecification: { settlement, transferLegId: 'leg0', transferLeg },
          asset: amulet,
        }),
      );
      updates.allocated = executed.updateId;
      const pending = await sdk.token.allocation.pending(alice.partyId);
      expect(pending).toHaveLength(1);
      expect(pending[0].interfaceViewValue.allocation).toMatchObject({
        settlement: { executor: carol.partyId, settlementRef: { id: 'sdk-settlement-1' } },
        transferLegId: 'leg0',
        transferLeg: { sender: alice.partyId, receiver: bob.partyId, amount: '100.0000000000' },
      });
      expect(total(await unlocked(alice))).toBe(5900);

      const withdrawn = await submit(
        alice,
        await sdk.token.allocation.withdraw({ allocationCid: pending[0].contractId, asset: amulet }),
      );
      updates.allocationWithdrawn = withdrawn.updateId;
      expect(await sdk.token.allocation.pending(alice.partyId)).toEqual([]);
      expect(total(await unlocked(alice))).toBe(6000);
    }, 60_000);

    it('allocation executed: a leg alice sends to herself and settles as executor (Allocation_ExecuteTransfer needs all three)', async () => {
      const amulet = await sdk.asset.find('Amulet', registryUrl);
      const now = Date.now();
      const settlement = {
        executor: alice.partyId,
        settlementRef: { id: 'sdk-settlement-2', cid: null },
        requestedAt: new Date(now - 60_000).toISOString(),
        allocateBefore: new Date(now + 3_600_000).toISOString(),
        settleBefore: new Date(now + 7_200_000).toISOString(),
        meta: { values: {} },
      };
      const transferLeg = {
        sender: alice.partyId,
        receiver: alice.partyId,
        amount: '50',
        instrumentId: { admin: amulet.admin, id: 'Amulet' },
        meta: { values: {} },
      };
      await submit(
        alice,
        await sdk.token.allocation.instruction.create({
          allocationSpecification: { settlement, transferLegId: 'self', transferLeg },
          asset: amulet,
        }),
      );
      const [allocation] = await sdk.token.allocation.pending(alice.partyId);
      expect(allocation.interfaceViewValue.allocation.settlement.settlementRef.id).toBe('sdk-settlement-2');
      expect(total(await unlocked(alice))).toBe(5950);
      const context = await sdk.token.allocation.context.execute({ allocationCid: allocation.contractId, registryUrl });
      // The registry's context for the execution discloses the allocation's locked holding and names the config state.
      const locked = (await holdings(alice)).filter(
        (h) => h.interfaceViewValue.lock?.context === 'allocation for settlement of sdk-settlement-2',
      );
      expect(locked).toHaveLength(1);
      expect(context.disclosedContracts.map((d: any) => d.contractId)).toContain(locked[0].contractId);
      expect(Object.keys(context.choiceContextData.values)).toContain('external-party-config-state');
      const executed = await submit(
        alice,
        await sdk.token.allocation.execute({ allocationCid: allocation.contractId, asset: amulet }),
      );
      updates.allocationExecuted = executed.updateId;
      expect(await sdk.token.allocation.pending(alice.partyId)).toEqual([]);
      expect(total(await unlocked(alice))).toBe(6000);
      expect(total(await holdings(alice))).toBe(6000);
    }, 60_000);

    it('merge: five parallel taps for bob, then token.utxos.merge leaves him one holding of the sum', async () => {
      await Promise.all(Array.from({ length: 5 }, async () => submit(bob, await sdk.amulet.tap(bob.partyId, '100'))));
      const before = await holdings(bob);
      expect(amounts(before)).toEqual([
        '100.0000000000',
        '100.0000000000',
        '100.0000000000',
        '100.0000000000',
        '100.0000000000',
        '2000.0000000000',
      ]);
      const [commands, disclosed] = await sdk.token.utxos.merge({ partyId: bob.partyId });
      expect(commands).toHaveLength(1);
      for (const command of commands) updates.merged = (await submit(bob, [command, disclosed])).updateId;
      expect(amounts(await holdings(bob))).toEqual(['2500.0000000000']);
    }, 90_000);

    it('history: token.holdings (core-tx-parser) labels alice’s tap, transfers, returns and allocation', async () => {
      const history = await sdk.token.holdings({ partyId: alice.partyId });
      const byUpdate = new Map<string, any[]>(history.transactions.map((t: any) => [t.updateId, t.events]));
      const labelOf = (key: string) => {
        const events = byUpdate.get(updates[key]);
        expect(events, `${key} in alice's history`).toBeDefined();
        return events!.map((e: any) => e.label);
      };
      expect(labelOf('tap')).toEqual([expect.objectContaining({ type: 'Mint', mintAmount: '10000', burnAmount: '0' })]);
      expect(labelOf('oneStep')).toEqual([
        expect.objectContaining({
          type: 'TransferOut',
          receiverAmounts: [{ receiver: carol.partyId, amount: '2000' }],
          mintAmount: '0',
          burnAmount: '0',
          reason: 'one-step',
          tokenStandardChoice: expect.objectContaining({ name: 'TransferFactory_Transfer' }),
        }),
      ]);
      expect(labelOf('accepted')).toEqual([
        expect.objectContaining({
          type: 'TransferOut',
          receiverAmounts: [{ receiver: bob.partyId, amount: '2000' }],
          mintAmount: '0',
          burnAmount: '0',
          reason: 'two-step accepted',
          tokenStandardChoice: expect.objectContaining({ name: 'TransferInstruction_Accept' }),
        }),
      ]);
      for (const [key, choice] of [
        ['rejected', 'TransferInstruction_Reject'],
        ['withdrawn', 'TransferInstruction_Withdraw'],
      ] as const) {
        const [label] = labelOf(key);
        expect(label).toMatchObject({
          type: 'MergeSplit',
          mintAmount: '0',
          burnAmount: '0',
          tokenStandardChoice: { name: choice },
        });
        const [event] = byUpdate.get(updates[key])!;
        // the locked amount comes back to alice as an unlocked holding
        expect(event.lockedHoldingsChange.archives.map((h: any) => h.owner)).toEqual([alice.partyId]);
        expect(event.unlockedHoldingsChange.creates.map((h: any) => h.owner)).toEqual([alice.partyId]);
        expect(event.transferInstruction.status.current.tag).toBe('Failed');
      }
      // The allocation locks 100 of alice's for the settlement; its withdrawal unlocks them.
      const [allocated] = byUpdate.get(updates.allocated)!;
      expect(allocated.label).toMatchObject({ type: 'MergeSplit', mintAmount: '0', burnAmount: '0' });
      expect(allocated.lockedHoldingsChange.creates).toEqual([
        expect.objectContaining({
          owner: alice.partyId,
          amount: '100.0000000000',
          lock: expect.objectContaining({ holders: [dso], context: 'allocation for settlement of sdk-settlement-1' }),
        }),
      ]);
      expect(allocated.unlockedHoldingsChangeSummaries).toEqual([expect.objectContaining({ amountChange: '-100' })]);
      const [released] = byUpdate.get(updates.allocationWithdrawn)!;
      expect(released.label).toMatchObject({ type: 'Unlock', mintAmount: '0', burnAmount: '0' });
      expect(released.lockedHoldingsChange.archives.map((h: any) => h.contractId)).toEqual(
        allocated.lockedHoldingsChange.creates.map((h: any) => h.contractId),
      );
      expect(released.unlockedHoldingsChange.creates).toEqual([
        expect.objectContaining({ owner: alice.partyId, amount: '100.0000000000' }),
      ]);
      // The history balances: the unlocked and locked changes of alice sum to her holdings now.
      expect(netChange(history)).toBe(total(await holdings(alice)));
    }, 60_000);

    it('history: token.holdings of bob and carol balances with their holdings', async () => {
      for (const party of [bob, carol]) {
        const history = await sdk.token.holdings({ partyId: party.partyId });
        expect(history.transactions.length).toBeGreaterThan(0);
        expect(netChange(history)).toBe(total(await holdings(party)));
      }
    }, 60_000);

    it('history: token.transactionsById shows carol’s one-step transfer in, and bob’s accepted transfer in and merge', async () => {
      const oneStep = await sdk.token.transactionsById({ updateId: updates.oneStep, partyId: carol.partyId });
      expect(oneStep.updateId).toBe(updates.oneStep);
      expect(oneStep.events).toHaveLength(1);
      expect(oneStep.events[0].label).toMatchObject({ type: 'TransferIn', sender: alice.partyId, reason: 'one-step' });
      expect(oneStep.events[0].unlockedHoldingsChange.creates).toEqual([
        expect.objectContaining({ owner: carol.partyId, amount: '2000.0000000000' }),
      ]);

      const accepted = await sdk.token.transactionsById({ updateId: updates.accepted, partyId: bob.partyId });
      expect(accepted.events.map((e: any) => e.label)).toEqual([
        expect.objectContaining({
          type: 'TransferIn',
          sender: alice.partyId,
          tokenStandardChoice: expect.objectContaining({ name: 'TransferInstruction_Accept' }),
        }),
      ]);
      expect(accepted.events[0].transferInstruction.status.current.tag).toBe('Completed');

      const merged = await sdk.token.transactionsById({ updateId: updates.merged, partyId: bob.partyId });
      expect(merged.events).toHaveLength(1);
      expect(merged.events[0].label).toMatchObject({ type: 'MergeSplit', mintAmount: '0', burnAmount: '0' });
      expect(merged.events[0].unlockedHoldingsChangeSummaries).toEqual([
        expect.objectContaining({ numInputs: 6, inputAmount: '2500', numOutputs: 1, outputAmount: '2500' }),
      ]);
      const change = merged.events[0].unlockedHoldingsChange;
      expect(amounts(change.archives.map((h: any) => ({ interfaceViewValue: h })))).toEqual([
        ...Array(5).fill('100.0000000000'),
        '2000.0000000000',
      ]);
      expect(change.creates).toEqual([expect.objectContaining({ owner: bob.partyId, amount: '2500.0000000000' })]);
    }, 60_000);
  },
);
