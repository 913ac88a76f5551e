/**
 * The token registry's pure decisions: request decoding, which DSO contracts Canton Coin's answers name (the newest
 * opened round, the config state archived last, a usable pre-approval), the transfer kind, the two-step contexts with
 * and without the LockedAmulet, disclosure with and without debug fields, the generic registry's factory and contexts,
 * instrument pages, and template ids from packages.
 */
import { describe, expect, it } from 'vitest';
import {
  amuletAllocationFactory,
  amuletDsoOf,
  amuletReferences,
  amuletTransferFactory,
  amuletTwoStepContext,
  ChoiceContextBuilder,
  selectRegistry,
  decodeChoiceContextRequest,
  decodeFactoryRequest,
  decodePageSize,
  decodeTransferFactoryArguments,
  featuredAppRightOf,
  findInstrument,
  instrumentPage,
  isTokenRegistryError,
  latestConfigState,
  latestUsableOpenRound,
  templateIdsImplementing,
  templateIdsNamed,
  tokenChoiceContext,
  tokenFactory,
  tokenInstruments,
  tokenTransferFactory,
  usablePreapproval,
  type AmuletReferenceContracts,
  type RegistryContract,
  type StoredCreatedEvent,
} from '@ledgerline/domain';
import { interfacePackages } from '../../support/interface-packages';

const fingerprint = (c: string) => `1220${c.repeat(64)}`;
const dso = `dso::${fingerprint('a')}`;
const alice = `alice::${fingerprint('b')}`;
const bob = `bob::${fingerprint('c')}`;
const sync = 'global::1220dd';
const at = (iso: string) => BigInt(Date.parse(iso)) * 1000n;
const NOW = at('2026-01-01T12:00:00Z');

let seq = 0;
function contract(
  entity: string,
  createArgument: Record<string, unknown>,
  createdAt = `2026-01-01T00:00:${String(++seq % 60).padStart(2, '0')}Z`,
): RegistryContract {
  const createdEvent: StoredCreatedEvent = {
    nodeId: 0,
    contractId: `00${String(++seq).padStart(64, '0')}`,
    templateId: `pkg:${entity}`,
    packageName: 'splice-amulet',
    representativePackageId: 'pkg',
    createArgument,
    createdEventBlob: `blob-${seq}`,
    signatories: [dso],
    observers: [],
    createdAt,
    contractKey: null,
    contractKeyHash: '',
    acsDelta: true,
  };
  return { createdEvent, synchronizerId: sync };
}
const cid = (c: RegistryContract) => c.createdEvent.contractId;
const round = (n: number, opensAt: string) =>
  contract('Splice.Round:OpenMiningRound', { dso, round: { number: String(n) }, opensAt });
const configState = (targetArchiveAfter: string) =>
  contract('Splice.ExternalPartyConfigState:ExternalPartyConfigState', { dso, targetArchiveAfter });
const preapproval = (receiver: string, expiresAt: string, provider = receiver) =>
  contract('Splice.AmuletRules:TransferPreapproval', { dso, receiver, provider, expiresAt });

function refs(): AmuletReferenceContracts {
  return {
    dso,
    amuletRules: contract('Splice.AmuletRules:AmuletRules', { dso }),
    externalPartyAmuletRules: contract('Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules', { dso }),
    openRounds: [round(0, '2026-01-01T10:00:00Z'), round(2, '2026-01-01T13:00:00Z'), round(1, '2026-01-01T11:00:00Z')],
    configStates: [configState('2026-01-01T12:10:00Z'), configState('2026-01-01T12:20:00Z')],
  };
}

const expectRefusal = (f: () => unknown, status: number, message: string) => {
  try {
    f();
  } catch (e) {
    expect(isTokenRegistryError(e)).toBe(true);
    expect(e).toMatchObject({ status, message, body: { error: message } });
    return;
  }
  throw new Error('expected a refusal');
};

const transferArgs = (sender: string, receiver: string) => ({
  expectedAdmin: dso,
  transfer: {
    sender,
    receiver,
    amount: '1.0',
    instrumentId: { admin: dso, id: 'Amulet' },
    requestedAt: 't',
    executeBefore: 't',
    inputHoldingCids: [],
    meta: { values: {} },
    lock: null,
  },
  extraArgs: { context: { values: {} }, meta: { values: {} } },
});

describe('requests', () => {
  it('factory requests need choiceArguments; excludeDebugFields defaults to false and must be a boolean', () => {
    expect(decodeFactoryRequest({ choiceArguments: { a: 1 } })).toEqual({
      choiceArguments: { a: 1 },
      excludeDebugFields: false,
    });
    expect(decodeFactoryRequest({ choiceArguments: {}, excludeDebugFields: true }).excludeDebugFields).toBe(true);
    expectRefusal(
      () => decodeFactoryRequest({}),
      400,
      'Field `choiceArguments` is required and must be a JSON object.',
    );
    expectRefusal(
      () => decodeFactoryRequest({ choiceArguments: [] }),
      400,
      'Field `choiceArguments` is required and must be a JSON object.',
    );
    expectRefusal(() => decodeFactoryRequest('x'), 400, 'The request body must be a JSON object.');
    expectRefusal(
      () => decodeFactoryRequest({ choiceArguments: {}, excludeDebugFields: 1 }),
      400,
      'Field `excludeDebugFields` must be a boolean.',
    );
  });

  it('choice-context requests: all fields optional, meta a map of strings', () => {
    expect(decodeChoiceContextRequest({})).toEqual({ meta: {}, excludeDebugFields: false });
    expect(decodeChoiceContextRequest(undefined)).toEqual({ meta: {}, excludeDebugFields: false });
    expect(decodeChoiceContextRequest({ meta: { k: 'v' }, excludeDebugFields: true })).toEqual({
      meta: { k: 'v' },
      excludeDebugFields: true,
    });
    expectRefusal(
      () => decodeChoiceContextRequest({ meta: { k: 1 } }),
      400,
      'Field `meta` must be a JSON object of strings.',
    );
  });

  it('a TransferFactory_Transfer: the parties it names; every missing or mistyped field reported', () => {
    expect(decodeTransferFactoryArguments(transferArgs(alice, bob))).toEqual({
      expectedAdmin: dso,
      sender: alice,
      receiver: bob,
      instrumentId: { admin: dso, id: 'Amulet' },
    });
    expectRefusal(
      () => decodeTransferFactoryArguments({ expectedAdmin: dso, transfer: { sender: 'x' } }),
      400,
      'Field `choiceArguments` does not contain a valid `TransferFactory_Transfer`: transfer.sender must be a party id; transfer.receiver must be a party id; ' +
        'transfer.amount must be a decimal; transfer.instrumentId must be an object; transfer.instrumentId.admin must be a party id; ' +
        'transfer.instrumentId.id must be a string; transfer.requestedAt must be a string; transfer.executeBefore must be a string; ' +
        'transfer.inputHoldingCids must be a list of contract ids; transfer.meta must be an object; extraArgs must be an object; ' +
        'extraArgs.context must be an object; extraArgs.meta must be an object',
    );
  });
});

describe('Canton Coin: which contracts', () => {
  it('the DSO is that of the oldest AmuletRules; its rules are required (404 without)', () => {
    const old = contract('Splice.AmuletRules:AmuletRules', { dso }, '2025-01-01T00:00:00Z');
    const other = contract('Splice.AmuletRules:AmuletRules', { dso: alice }, '2025-06-01T00:00:00Z');
    expect(amuletDsoOf([other, old])).toBe(dso);
    expect(amuletDsoOf([])).toBeNull();
    const external = contract('Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules', { dso });
    const none = {
      amuletRules: [],
      externalPartyAmuletRules: [],
      openMiningRound: [],
      externalPartyConfigState: [],
      transferPreapproval: [],
      featuredAppRight: [],
    };
    expect(
      amuletReferences({ ...none, amuletRules: [other, old], externalPartyAmuletRules: [external] }, dso),
    ).toMatchObject({ amuletRules: old, externalPartyAmuletRules: external });
    expectRefusal(
      () => amuletReferences({ ...none, amuletRules: [old] }, dso),
      404,
      `No active ExternalPartyAmuletRules contract found for ${dso}.`,
    );
  });

  it('the open round is the highest-numbered one that has opened; none opened is 404', () => {
    expect(latestUsableOpenRound(refs().openRounds, dso, NOW).createdEvent.createArgument).toMatchObject({
      round: { number: '1' },
    });
    expect(
      latestUsableOpenRound(refs().openRounds, dso, at('2026-01-01T14:00:00Z')).createdEvent.createArgument,
    ).toMatchObject({ round: { number: '2' } });
    expectRefusal(
      () => latestUsableOpenRound(refs().openRounds, dso, at('2026-01-01T09:00:00Z')),
      404,
      'No open usable OpenMiningRound found.',
    );
    expectRefusal(
      () => latestUsableOpenRound(refs().openRounds, 'other::1220ee', NOW),
      404,
      'No open usable OpenMiningRound found.',
    );
  });

  it('the config state archived last; none is null', () => {
    const r = refs();
    expect(latestConfigState(r.configStates, dso)).toBe(r.configStates[1]);
    expect(latestConfigState([...r.configStates].reverse(), dso)).toBe(r.configStates[1]);
    expect(latestConfigState([], dso)).toBeNull();
  });

  it('a pre-approval of the receiver that has not expired, the one expiring last; the FeaturedAppRight of a provider', () => {
    const early = preapproval(bob, '2026-01-02T00:00:00Z');
    const late = preapproval(bob, '2026-01-03T00:00:00Z');
    const expired = preapproval(alice, '2026-01-01T11:00:00Z');
    expect(usablePreapproval([early, late, expired], dso, bob, NOW)).toBe(late);
    expect(usablePreapproval([early, late, expired], dso, alice, NOW)).toBeNull();
    const right = contract('Splice.Amulet:FeaturedAppRight', { dso, provider: bob });
    expect(featuredAppRightOf([right], dso, bob)).toBe(right);
    expect(featuredAppRightOf([right], dso, alice)).toBeNull();
  });
});

describe('Canton Coin: answers', () => {
  it('transfer factory: self, offer and direct, with the keys and disclosures scan gives', () => {
    const r = refs();
    const self = amuletTransferFactory(
      r,
      {
        sender: alice,
        receiver: alice,
        preapproval: preapproval(alice, '2026-02-01T00:00:00Z'),
        featuredAppRight: null,
      },
      NOW,
      true,
    );
    expect(self.transferKind).toBe('self');
    expect(self.factoryId).toBe(cid(r.externalPartyAmuletRules));
    expect(self.choiceContext.choiceContextData.values).toEqual({
      'amulet-rules': { tag: 'AV_ContractId', value: cid(r.amuletRules) },
      'open-round': { tag: 'AV_ContractId', value: cid(r.openRounds[2]) },
      'external-party-config-state': { tag: 'AV_ContractId', value: cid(r.configStates[1]) },
    });
    expect(self.choiceContext.disclosedContracts).toEqual(
      [r.amuletRules, r.openRounds[2], r.configStates[1], r.externalPartyAmuletRules].map((c) => ({
        templateId: c.createdEvent.templateId,
        contractId: cid(c),
        createdEventBlob: c.createdEvent.createdEventBlob,
        synchronizerId: sync,
      })),
    );
    expect(
      amuletTransferFactory(r, { sender: alice, receiver: bob, preapproval: null, featuredAppRight: null }, NOW, true)
        .transferKind,
    ).toBe('offer');
    const pre = preapproval(bob, '2026-02-01T00:00:00Z', alice);
    const right = contract('Splice.Amulet:FeaturedAppRight', { dso, provider: alice });
    const direct = amuletTransferFactory(
      r,
      { sender: alice, receiver: bob, preapproval: pre, featuredAppRight: right },
      NOW,
      false,
    );
    expect(direct.transferKind).toBe('direct');
    expect(Object.keys(direct.choiceContext.choiceContextData.values)).toEqual([
      'amulet-rules',
      'open-round',
      'external-party-config-state',
      'featured-app-right',
      'transfer-preapproval',
    ]);
    expect(direct.choiceContext.disclosedContracts.map((d) => d.contractId)).toEqual(
      [r.amuletRules, r.openRounds[2], r.configStates[1], right, pre, r.externalPartyAmuletRules].map(cid),
    );
    expect(direct.choiceContext.disclosedContracts[0]).toMatchObject({
      debugPackageName: 'splice-amulet',
      debugPayload: { dso },
      debugCreatedAt: r.amuletRules.createdEvent.createdAt,
    });
  });

  it('allocation factory: ExternalPartyAmuletRules with the reference contracts', () => {
    const r = refs();
    const f = amuletAllocationFactory({ ...r, configStates: [] }, NOW, true);
    expect(f.factoryId).toBe(cid(r.externalPartyAmuletRules));
    expect(Object.keys(f.choiceContext.choiceContextData.values)).toEqual(['amulet-rules', 'open-round']);
    expect(f.choiceContext.disclosedContracts.map((d) => d.contractId)).toEqual(
      [r.amuletRules, r.openRounds[2], r.externalPartyAmuletRules].map(cid),
    );
  });

  it('two-step contexts: the LockedAmulet disclosed with expire-lock true; without it, accept is 404 and the others get expire-lock false', () => {
    const r = refs();
    const locked = contract('Splice.Amulet:LockedAmulet', { dso });
    const right = contract('Splice.Amulet:FeaturedAppRight', { dso, provider: bob });
    const t = {
      description: "AmuletAllocation 'x'",
      lockedAmuletId: cid(locked),
      lockedAmulet: locked,
      expiresAt: '2026-01-02T00:00:00Z',
      requireLockedAmulet: true,
      featuredAppRight: right,
    };
    const ctx = amuletTwoStepContext(r, t, NOW, true);
    expect(ctx.choiceContextData.values).toEqual({
      'amulet-rules': { tag: 'AV_ContractId', value: cid(r.amuletRules) },
      'open-round': { tag: 'AV_ContractId', value: cid(r.openRounds[2]) },
      'external-party-config-state': { tag: 'AV_ContractId', value: cid(r.configStates[1]) },
      'expire-lock': { tag: 'AV_Bool', value: true },
      'featured-app-right': { tag: 'AV_ContractId', value: cid(right) },
    });
    expect(ctx.disclosedContracts.map((d) => d.contractId)).toEqual(
      [r.amuletRules, r.openRounds[2], r.configStates[1], locked, right].map(cid),
    );
    expectRefusal(
      () => amuletTwoStepContext(r, { ...t, lockedAmulet: null }, NOW, true),
      404,
      `LockedAmulet '${cid(locked)}' not found for AmuletAllocation 'x', which expires on 2026-01-02T00:00:00Z`,
    );
    expect(amuletTwoStepContext(r, { ...t, lockedAmulet: null, requireLockedAmulet: false }, NOW, true)).toEqual({
      choiceContextData: { values: { 'expire-lock': { tag: 'AV_Bool', value: false } } },
      disclosedContracts: [],
    });
  });

  it('the builder discloses a contract once, in the order first added', () => {
    const c = contract('M:T', {});
    const built = new ChoiceContextBuilder(true).contract('a', c).disclose(c).contract('b', c).build();
    expect(built.disclosedContracts).toHaveLength(1);
    expect(Object.keys(built.choiceContextData.values)).toEqual(['a', 'b']);
  });
});

describe('generic registry', () => {
  const admin = 'issuer::1220ff';
  const viewed = (view: Record<string, unknown>, createdAt?: string) => ({
    contract: contract('Rules:TokenRules', { admin }, createdAt),
    view,
  });

  it('the factory: the oldest contract whose view names the admin, disclosed, empty context; none is 404', () => {
    const older = viewed({ admin }, '2025-01-01T00:00:00Z');
    const newer = viewed({ admin }, '2025-06-01T00:00:00Z');
    const foreign = viewed({ admin: 'other::1220ee' }, '2024-01-01T00:00:00Z');
    const f = tokenFactory([newer, foreign, older], admin, 'TransferFactory', true);
    expect(f).toEqual({
      factoryId: cid(older.contract),
      choiceContext: {
        choiceContextData: { values: {} },
        disclosedContracts: [expect.objectContaining({ contractId: cid(older.contract) })],
      },
    });
    expectRefusal(
      () => tokenFactory([foreign], admin, 'AllocationFactory', true),
      404,
      `No AllocationFactory found for admin ${admin}.`,
    );
    expect(tokenTransferFactory([older], admin, { sender: alice, receiver: alice }, true).transferKind).toBe('self');
    expect(tokenTransferFactory([older], admin, { sender: alice, receiver: bob }, true).transferKind).toBe('offer');
  });

  it('instruction and allocation contexts are empty for the admin’s instrument, else 404', () => {
    const instruction = viewed({ transfer: { instrumentId: { admin, id: 'X' } } });
    expect(tokenChoiceContext(instruction, 'i', admin, 'TransferInstruction')).toEqual({
      choiceContextData: { values: {} },
      disclosedContracts: [],
    });
    expectRefusal(
      () => tokenChoiceContext(instruction, 'i', 'other::1220ee', 'TransferInstruction'),
      404,
      "TransferInstruction 'i' not found.",
    );
    expectRefusal(() => tokenChoiceContext(null, 'a', admin, 'Allocation'), 404, "Allocation 'a' not found.");
    const allocation = viewed({ allocation: { transferLeg: { instrumentId: { admin, id: 'X' } } } });
    expect(tokenChoiceContext(allocation, 'a', admin, 'Allocation').disclosedContracts).toEqual([]);
  });

  it('instruments: the distinct ids of the admin’s holdings, with the APIs of the factories there are', () => {
    const views = [
      { instrumentId: { admin, id: 'B' } },
      { instrumentId: { admin, id: 'A' } },
      { instrumentId: { admin, id: 'B' } },
      { instrumentId: { admin: 'x::1220ee', id: 'C' } },
    ];
    const found = tokenInstruments(views, admin, { transfer: true, allocation: false });
    expect(found.map((i) => i.id)).toEqual(['A', 'B']);
    expect(found[0]).toEqual({
      id: 'A',
      name: 'A',
      symbol: 'A',
      decimals: 10,
      supportedApis: {
        'splice-api-token-metadata-v1': 1,
        'splice-api-token-holding-v1': 1,
        'splice-api-token-transfer-instruction-v1': 1,
      },
    });
  });
});

describe('metadata', () => {
  const inst = (id: string) => ({ id, name: id, symbol: id, decimals: 10, supportedApis: {} });
  it('pages of instruments in id order chained by nextPageToken', () => {
    const all = ['c', 'a', 'b'].map(inst);
    expect(instrumentPage(all, 2, undefined)).toEqual({ instruments: [inst('a'), inst('b')], nextPageToken: 'b' });
    expect(instrumentPage(all, 2, 'b')).toEqual({ instruments: [inst('c')] });
    expect(instrumentPage(all, 25, undefined)).toEqual({ instruments: [inst('a'), inst('b'), inst('c')] });
    expect(decodePageSize(undefined)).toBe(25);
    expect(decodePageSize('3')).toBe(3);
    expectRefusal(() => decodePageSize('0'), 400, "pageSize must be a positive integer (got '0')");
    expectRefusal(() => decodePageSize('x'), 400, "pageSize must be a positive integer (got 'x')");
    expectRefusal(() => findInstrument(all, 'z'), 404, 'No instrument with id z found');
  });
});

describe('which registry', () => {
  const issuer = `issuer::1220${'f'.repeat(64)}`;
  it('the root: Canton Coin’s when there is a DSO, else the first configured; an admin: the DSO’s or a configured one, else 404', () => {
    expect(selectRegistry(undefined, dso, [issuer])).toEqual({ kind: 'amulet', admin: dso });
    expect(selectRegistry(undefined, null, [issuer, alice])).toEqual({ kind: 'token', admin: issuer });
    expectRefusal(
      () => selectRegistry(undefined, null, []),
      404,
      'This ledger serves no token registry: no AmuletRules is active and LEDGER_TOKEN_REGISTRIES names no admin.',
    );
    expect(selectRegistry(dso, dso, [])).toEqual({ kind: 'amulet', admin: dso });
    expect(selectRegistry(issuer, dso, [issuer])).toEqual({ kind: 'token', admin: issuer });
    expectRefusal(() => selectRegistry(bob, dso, [issuer]), 404, `No token registry is served for admin ${bob}.`);
  });
});

describe('template ids from packages', () => {
  it('by name over every package of that name; implementations of an interface named by its package name', () => {
    const p = interfacePackages();
    const packages = [p.api, p.token];
    const byId = (id: string) => packages.find((x) => x.id === id);
    expect(templateIdsNamed(packages, 'iv-token:Token:Coin')).toEqual([`${p.token.id}:Token:Coin`]);
    expect(templateIdsNamed(packages, 'iv-token:Token:Nope')).toEqual([]);
    expect(templateIdsImplementing(packages, 'iv-api:Api:Asset', byId)).toEqual([`${p.token.id}:Token:Coin`]);
    expect(templateIdsImplementing(packages, 'other-api:Api:Asset', byId)).toEqual([]);
    expect(templateIdsImplementing(packages, 'iv-api:Api:Asset', () => undefined)).toEqual([]);
    const bare = interfacePackages({ withInstance: false });
    expect(
      templateIdsImplementing([bare.api, bare.token], 'iv-api:Api:Asset', (id) =>
        [bare.api, bare.token].find((x) => x.id === id),
      ),
    ).toEqual([]);
  });
});
