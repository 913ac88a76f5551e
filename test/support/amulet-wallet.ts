import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { AmuletLedger } from './amulet-ledger';
import { AmuletRegistry, INTERFACES, TEMPLATES } from '../../testkit/amulet-registry';
import { ed25519Signature, onboardExternalParty } from './external-party';

/**
 * What a wallet does with Canton Coin over the JSON API alone, as the wallet SDK's token-standard examples do it: external
 * parties (generate-topology, sign, allocate) whose commands are prepared, signed and executed, with the DSO's contracts
 * disclosed and the choice contexts of test/support/amulet-registry.ts. Shared by the amulet-token-flows tests.
 */
export type External = Awaited<ReturnType<typeof onboardExternalParty>>;
export type Reply = { status: number; text: string; json: any };
export interface HoldingRow {
  contractId: string;
  owner: string;
  amount: string;
  /** The lock's holders, or null for an unlocked holding. */
  lock: { holders: string[]; expiresAt: string | null; context: string | null } | null;
  templateId: string;
}

export const EMPTY_META = { values: {} };
export const iso = (deltaMs: number) => new Date(Date.now() + deltaMs).toISOString();
export const DAY_MS = 24 * 3600_000;

export interface Wallet {
  coin: AmuletLedger;
  registry: AmuletRegistry;
  /** Onboards an external party (generate-topology, sign the multi-hash, allocate) and lets the admin user act as it. */
  external(hint: string): Promise<External>;
  /** Prepares `commands` for the signers' parties, signs the hash with each one's key, executes and waits for the transaction. */
  signed(signers: External[], commands: unknown[], disclosedContracts: unknown[]): Promise<Reply>;
  /** The prepare answer alone (for refusals at preparation). */
  prepare(actAs: string[], commands: unknown[], disclosedContracts: unknown[]): Promise<Reply>;
  /** The holdings `party` sees through the Holding interface filter (interface views), owned by `owner` (default: party). */
  holdings(party: string, owner?: string): Promise<HoldingRow[]>;
  /** Whether contract `cid` is active for `party`. */
  isActive(party: string, cid: string): Promise<boolean>;
  ledgerEnd(): Promise<number>;
  /** TransferFactory_Transfer as a command, with the factory's context for that sender and receiver. */
  transferCommand(
    sender: string,
    receiver: string,
    amount: string,
    inputHoldingCids: string[],
  ): Promise<{ command: unknown; disclosed: unknown[]; kind: string }>;
  /** AmuletRules_DevNet_Tap in round 0 for an external party: prepared with the disclosed AmuletRules and round, signed. */
  tap(signer: External, amount: string): Promise<Reply>;
  /** A choice of the TransferInstruction interface with the two-step context of the instruction's locked amulet. */
  instructionCommand(instructionCid: string, choice: string): Promise<{ command: unknown; disclosed: unknown[] }>;
}

export function amuletWallet(coin: AmuletLedger): Wallet {
  const { ledger, sync, dso } = coin;
  const read = async (method: 'GET' | 'POST', pathname: string, body?: unknown) => {
    const r = await ledger.call(method, pathname, body);
    expect(r.status, r.text).toBe(200);
    return r.json;
  };
  const registry = new AmuletRegistry(read, dso, sync);
  const prepare = (actAs: string[], commands: unknown[], disclosedContracts: unknown[]) =>
    ledger.call('POST', '/v2/interactive-submission/prepare', {
      userId: '',
      commandId: randomUUID(),
      actAs,
      readAs: [],
      disclosedContracts,
      synchronizerId: sync,
      packageIdSelectionPreference: [],
      verboseHashing: false,
      commands,
    }) as Promise<Reply>;
  const ledgerEnd = async () => (await read('GET', '/v2/state/ledger-end')).offset as number;

  const wallet: Wallet = {
    coin,
    registry,
    prepare,
    ledgerEnd,
    async external(hint) {
      const ext = await onboardExternalParty(ledger, hint);
      const r = await ledger.call('POST', `/v2/users/${ledger.config.adminUser}/rights`, {
        rights: [{ kind: { CanActAs: { value: { party: ext.partyId } } } }],
      });
      expect(r.status, r.text).toBe(200);
      return ext;
    },
    async signed(signers, commands, disclosedContracts) {
      const parties = signers.map((s) => s.partyId);
      const prepared = await prepare(parties, commands, disclosedContracts);
      if (prepared.status !== 200) return prepared;
      const hash = Buffer.from(prepared.json.preparedTransactionHash, 'base64');
      return ledger.call('POST', '/v2/interactive-submission/executeAndWaitForTransaction', {
        preparedTransaction: prepared.json.preparedTransaction,
        partySignatures: {
          signatures: signers.map((s) => ({
            party: s.partyId,
            signatures: [ed25519Signature(s.key, hash, s.fingerprint)],
          })),
        },
        deduplicationPeriod: { Empty: {} },
        submissionId: randomUUID(),
        userId: '',
        hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
        transactionFormat: {
          transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
          eventFormat: {
            filtersByParty: Object.fromEntries(parties.map((p) => [p, { cumulative: [] }])),
            verbose: true,
          },
        },
      }) as Promise<Reply>;
    },
    async holdings(party, owner = party) {
      const acs = await read('POST', '/v2/state/active-contracts', {
        activeAtOffset: await ledgerEnd(),
        eventFormat: {
          filtersByParty: {
            [party]: {
              cumulative: [
                {
                  identifierFilter: {
                    InterfaceFilter: { value: { interfaceId: INTERFACES.holding, includeInterfaceView: true } },
                  },
                },
              ],
            },
          },
          verbose: true,
        },
      });
      return acs
        .map((e: any) => e.contractEntry.JsActiveContract.createdEvent)
        .map((c: any) => {
          const [view] = c.interfaceViews;
          expect(view.viewStatus.code, JSON.stringify(view.viewStatus)).toBe(0);
          const v = view.viewValue;
          expect(v.instrumentId).toEqual({ admin: dso, id: 'Amulet' });
          return {
            contractId: c.contractId,
            owner: v.owner,
            amount: v.amount,
            lock: v.lock && { holders: v.lock.holders, expiresAt: v.lock.expiresAt, context: v.lock.context },
            templateId: c.templateId.split(':').slice(1).join(':'),
          } as HoldingRow;
        })
        .filter((h: HoldingRow) => h.owner === owner)
        .sort((a: HoldingRow, b: HoldingRow) => Number(a.amount) - Number(b.amount));
    },
    async isActive(party, cid) {
      const acs = await read('POST', '/v2/state/active-contracts', {
        activeAtOffset: await ledgerEnd(),
        eventFormat: {
          filtersByParty: {
            [party]: {
              cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: false } } } }],
            },
          },
        },
      });
      return acs.some((e: any) => e.contractEntry?.JsActiveContract?.createdEvent.contractId === cid);
    },
    async transferCommand(sender, receiver, amount, inputHoldingCids) {
      const factory = await registry.transferFactory(sender, receiver);
      const choiceArgument = {
        expectedAdmin: dso,
        transfer: {
          sender,
          receiver,
          amount,
          instrumentId: { admin: dso, id: 'Amulet' },
          requestedAt: iso(-60_000),
          executeBefore: iso(DAY_MS),
          inputHoldingCids,
          meta: EMPTY_META,
        },
        extraArgs: { context: factory.choiceContextData, meta: EMPTY_META },
      };
      return {
        command: {
          ExerciseCommand: {
            templateId: INTERFACES.transferFactory,
            contractId: factory.factoryId,
            choice: 'TransferFactory_Transfer',
            choiceArgument,
          },
        },
        disclosed: factory.disclosedContracts,
        kind: factory.transferKind,
      };
    },
    async tap(signer, amount) {
      const contracts = await registry.dsoContracts([TEMPLATES.amuletRules, TEMPLATES.openRound]);
      const disclosed = contracts
        .filter((c) => c.contractId === coin.rulesCid || c.contractId === coin.openRoundCid)
        .map((c) => registry.disclose(c));
      expect(disclosed).toHaveLength(2);
      const choiceArgument = { receiver: signer.partyId, amount, openRound: coin.openRoundCid };
      return wallet.signed(
        [signer],
        [
          {
            ExerciseCommand: {
              templateId: TEMPLATES.amuletRules,
              contractId: coin.rulesCid,
              choice: 'AmuletRules_DevNet_Tap',
              choiceArgument,
            },
          },
        ],
        disclosed,
      );
    },
    async instructionCommand(instructionCid, choice) {
      const acs = await read('POST', '/v2/state/active-contracts', {
        activeAtOffset: await ledgerEnd(),
        eventFormat: {
          filtersByParty: {
            [dso]: {
              cumulative: [
                { identifierFilter: { TemplateFilter: { value: { templateId: TEMPLATES.transferInstruction } } } },
              ],
            },
          },
          verbose: true,
        },
      });
      const instr = acs
        .map((e: any) => e.contractEntry.JsActiveContract.createdEvent)
        .find((c: any) => c.contractId === instructionCid);
      const context = await registry.twoStepContext(instr ? instr.createArgument.lockedAmulet : '');
      return {
        command: {
          ExerciseCommand: {
            templateId: INTERFACES.transferInstruction,
            contractId: instructionCid,
            choice,
            choiceArgument: { extraArgs: { context: context.choiceContextData, meta: EMPTY_META } },
          },
        },
        disclosed: context.disclosedContracts,
      };
    },
  };
  return wallet;
}
