import { describe, expect, it } from 'vitest';
import { hashPreparedTransaction } from '@ledgerline/canton';
import { contractIdV1, deriveContractDiscriminator, deriveNodeSeed, deriveTransactionSeed } from '@ledgerline/daml-lf';
import {
  catalogTemplateDirectory,
  buildTransaction,
  checkPrepareParties,
  decidePrepare,
  packageIdForName,
  parseTemplateRef,
  prepareLedgerTime,
  templateCatalogProblems,
  validatePrepareRequest,
  type PrepareRequest,
  type TemplateCatalog,
} from '@ledgerline/domain';
import { loadConfig } from '@ledgerline/server/config';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const P = (hint: string) => `${hint}::1220${'ab'.repeat(32)}`;
const [alice, bob, carol, dan] = ['alice', 'bob', 'carol', 'dan'].map(P);
const SYNC = `global::1220${'cd'.repeat(32)}`;
const PARTICIPANT = `participant1::1220${'ef'.repeat(32)}`;

function request(
  createArguments: unknown,
  templateId = '#pkg:Main:T',
  over: Partial<PrepareRequest> = {},
): PrepareRequest {
  return {
    userId: 'u',
    commandId: 'c1',
    commands: [{ kind: 'create', templateId, template: parseTemplateRef(templateId)!, createArguments }],
    actAs: [alice],
    readAs: [],
    disclosedContracts: [],
    synchronizerId: '',
    packageIdSelectionPreference: [],
    hashingSchemeVersion: '',
    maxRecordTime: '',
    minLedgerTime: null,
    verboseHashing: false,
    ...over,
  };
}

function prepared(req: PrepareRequest, catalog: TemplateCatalog = { templates: {} }, known = [alice, bob, carol, dan]) {
  const { version } = validatePrepareRequest(req);
  const state = { knownParties: new Set(known), contracts: new Map() };
  checkPrepareParties(req, state);
  const env = {
    connectedSynchronizers: [SYNC],
    templates: catalogTemplateDirectory(catalog),
    now: 1_767_225_600_000_000n,
    transactionUuid: '6f1c6a4e-8c53-4f5e-9a63-2b7a0c1d9e11',
    submissionSeed: Buffer.alloc(32, 7),
    participantId: PARTICIPANT,
  };
  const r = decidePrepare(req, version, buildTransaction(req, state, env), env);
  const n = r.preparedTransaction.transaction!.nodes[0].versionedNode;
  if (n.oneofKind !== 'v1' || n.v1.nodeType.oneofKind !== 'create') throw new Error('no create');
  return { ...r, create: n.v1.nodeType.create };
}

describe('template ids', () => {
  it('parses <package>:<Module>:<Entity> with dotted names; anything else is refused', () => {
    expect(parseTemplateRef('#my-pkg:A.B:C.D')).toEqual({
      packageRef: '#my-pkg',
      moduleName: 'A.B',
      entityName: 'C.D',
    });
    expect(parseTemplateRef(`${'f'.repeat(64)}:Main:T`)).toBeDefined();
    for (const bad of ['', 'a:b', 'a:b:c:d', ':M:E', '#:M:E', '#p:M:', '#p:1M:E', '#p:M.:E'])
      expect(parseTemplateRef(bad), bad).toBeUndefined();
  });

  it('derives a stable 64-hex package id from a package name', () => {
    expect(packageIdForName('memo-pkg')).toMatch(/^[0-9a-f]{64}$/);
    expect(packageIdForName('memo-pkg')).toBe(packageIdForName('memo-pkg'));
    expect(packageIdForName('memo-pkg')).not.toBe(packageIdForName('memo-pkg2'));
  });
});

describe('the generic model', () => {
  it('is deterministic given time, UUID and seed; integers beyond 2^53 stay exact as bigint', () => {
    const a = prepared(request({ owner: alice, n: 2n ** 60n }));
    const b = prepared(request({ owner: alice, n: 2n ** 60n }));
    expect(a.bytes.equals(b.bytes)).toBe(true);
    expect(a.hash.equals(hashPreparedTransaction(a.preparedTransaction, 2))).toBe(true);
    const f = a.create.argument!.sum;
    expect(f.oneofKind === 'record' && f.record.fields[1].value!.sum).toEqual({
      oneofKind: 'int64',
      int64: '1152921504606846976',
    });
  });

  it("seeds and contract ids follow Canton's derivation (transaction seed, node seed, V1 discriminator)", () => {
    const { preparedTransaction, create } = prepared(request({ owner: alice, viewer: bob }));
    const tx = preparedTransaction.transaction!;
    const txSeed = deriveTransactionSeed(Buffer.alloc(32, 7), PARTICIPANT, 1_767_225_600_000_000n);
    const seed = deriveNodeSeed(txSeed, 0);
    expect(Buffer.from(tx.nodeSeeds[0].seed).toString('hex')).toBe(seed.toString('hex'));
    expect(create.contractId).toBe(
      contractIdV1(deriveContractDiscriminator(seed, 1_767_225_600_000_000n, create.stakeholders)),
    );
  });

  it('unknown party-shaped strings are text and not stakeholders', () => {
    const { create } = prepared(request({ owner: alice, other: P('stranger') }));
    expect(create.stakeholders).toEqual([alice]);
    const f = create.argument!.sum;
    expect(f.oneofKind === 'record' && f.record.fields[1].value!.sum.oneofKind).toBe('text');
  });

  it('a catalog entry names the signatory and observer fields (dotted paths, lists), by written or package-id form', () => {
    const catalog: TemplateCatalog = {
      templates: {
        '#pkg:Main:Iou': { signatories: ['issuer', 'terms.coIssuer'], observers: ['viewers'] },
        [`${packageIdForName('pkg')}:Main:Other`]: { observers: [] },
      },
    };
    const req = request(
      { issuer: alice, terms: { coIssuer: bob }, viewers: [carol, null], note: dan },
      '#pkg:Main:Iou',
      { actAs: [alice, bob] },
    );
    const { create } = prepared(req, catalog);
    expect(create.signatories).toEqual([alice, bob].sort());
    expect(create.stakeholders).toEqual([alice, bob, carol].sort()); // dan is in the arguments but not an observer field
    // Empty observer list → generic rule (entry found through the package-id form).
    const other = prepared(request({ owner: alice, x: dan }, '#pkg:Main:Other'), catalog).create;
    expect(other.stakeholders).toEqual([alice, dan].sort());
  });

  it('catalog signatories must all act; catalog party fields must hold known parties', () => {
    const catalog: TemplateCatalog = { templates: { '#pkg:Main:Iou': { signatories: ['issuer'] } } };
    expect(() => prepared(request({ issuer: bob }, '#pkg:Main:Iou'), catalog)).toThrow(
      expect.objectContaining({ code: 'DAML_AUTHORIZATION_ERROR' }),
    );
    expect(() => prepared(request({ issuer: 'text' }, '#pkg:Main:Iou'), catalog)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
    expect(() => prepared(request({ issuer: P('ghost') }, '#pkg:Main:Iou'), catalog)).toThrow(
      expect.objectContaining({ code: 'PARTY_NOT_KNOWN_ON_LEDGER' }),
    );
    expect(() => prepared(request({}, '#pkg:Main:Iou'), catalog)).toThrow(
      expect.objectContaining({ code: 'DAML_AUTHORIZATION_ERROR' }),
    );
  });

  it('minLedgerTime becomes the minimum ledger effective time', () => {
    const abs = prepared(request({ owner: alice }, '#pkg:Main:T', { minLedgerTime: { abs: '2026-01-01T00:00:10Z' } }));
    expect(abs.preparedTransaction.metadata!.minLedgerEffectiveTime).toBe(1_767_225_610_000_000n);
    const rel = prepared(request({ owner: alice }, '#pkg:Main:T', { minLedgerTime: { relSeconds: 5 } }));
    expect(rel.preparedTransaction.metadata!.minLedgerEffectiveTime).toBe(1_767_225_605_000_000n);
  });

  it("an engine-interpreted transaction's ledger time bounds are the prepared bounds, whatever minLedgerTime says", () => {
    const req = request({ owner: alice }, '#pkg:Main:T', { minLedgerTime: { abs: '2026-01-01T00:00:10Z' } });
    const { version } = validatePrepareRequest(req);
    const state = { knownParties: new Set([alice]), contracts: new Map() };
    const env = {
      connectedSynchronizers: [SYNC],
      templates: catalogTemplateDirectory({ templates: {} }),
      now: 1_767_225_600_000_000n,
      transactionUuid: '6f1c6a4e-8c53-4f5e-9a63-2b7a0c1d9e11',
      submissionSeed: Buffer.alloc(32, 7),
      participantId: PARTICIPANT,
    };
    const md = (ledgerTimeBounds: { min?: bigint; max?: bigint }) =>
      decidePrepare(req, version, { ...buildTransaction(req, state, env), ledgerTimeBounds }, env).preparedTransaction
        .metadata!;
    expect(md({ min: 5n, max: 9n })).toMatchObject({ minLedgerEffectiveTime: 5n, maxLedgerEffectiveTime: 9n });
    const none = md({});
    expect([none.minLedgerEffectiveTime, none.maxLedgerEffectiveTime]).toEqual([undefined, undefined]);
  });

  it('the ledger time prepared commands run at: now, raised to minLedgerTime.abs, or now + minLedgerTime.rel', () => {
    const now = 1_767_225_600_000_000n;
    expect(prepareLedgerTime({ minLedgerTime: null }, now)).toBe(now);
    expect(prepareLedgerTime({ minLedgerTime: { abs: '2026-01-01T00:00:10Z' } }, now)).toBe(now + 10_000_000n);
    expect(prepareLedgerTime({ minLedgerTime: { abs: '2025-12-31T23:59:00Z' } }, now)).toBe(now);
    expect(prepareLedgerTime({ minLedgerTime: { relSeconds: 2.5 } }, now)).toBe(now + 2_500_000n);
  });
});

describe('catalog file (LEDGER_TEMPLATE_CATALOG)', () => {
  it('reports each defect; a good file loads', () => {
    expect(templateCatalogProblems([])).toHaveLength(1);
    expect(
      templateCatalogProblems({
        templates: { 'a:b': {}, '#p:M:E': { signatories: ['ok', 'bad field'], extra: 1, packageName: 3 } },
      }),
    ).toEqual([
      'template id "a:b" is not <package>:<Module>:<Entity>',
      'entry "#p:M:E": unknown key "extra"',
      'entry "#p:M:E": "signatories" must be a list of field names (dotted paths allowed)',
      'entry "#p:M:E": "packageName" must be a string',
    ]);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'catalog-'));
    const good = path.join(dir, 'good.json');
    fs.writeFileSync(good, JSON.stringify({ templates: { '#p:M:E': { signatories: ['owner'] } } }));
    expect(loadConfig({ LEDGER_TEMPLATE_CATALOG: good }).templateCatalog.templates['#p:M:E']).toEqual({
      signatories: ['owner'],
    });
    fs.writeFileSync(path.join(dir, 'bad.json'), '{');
    expect(() => loadConfig({ LEDGER_TEMPLATE_CATALOG: path.join(dir, 'bad.json') })).toThrow(
      /LEDGER_TEMPLATE_CATALOG: cannot read/,
    );
    expect(loadConfig({}).templateCatalog).toEqual({ templates: {} });
  });
});
