import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreparedTransaction } from '@canton-network/core-ledger-proto';
import { packageIdForName } from '@ledgerline/domain';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import { buildDar, lfArchive, type TestArchive } from '../../support/dars';
import { ed25519Signature, onboardExternalParty, type TestKey } from '../../support/external-party';

/**
 * Template ids against the package store: `#name` resolves to the preferred (highest vetted) package, events carry the
 * real package name and representative package id, unknown packages fall back to the generic model's derived id (a
 * name the store knows but vets no package of is refused); with LEDGER_STRICT_PACKAGES unknown packages are refused.
 */
/** The admin acts as the party (prepare needs ReadAs, execute ExecuteAs). */
async function actAs(ledger: TestLedger, party: string): Promise<void> {
  const r = await ledger.call('POST', `/v2/users/${ledger.config.adminUser}/rights`, {
    rights: [{ kind: { CanActAs: { value: { party } } } }],
  });
  expect(r.status, r.text).toBe(200);
}

async function uploadTo(ledger: TestLedger, a: TestArchive, vet = true): Promise<void> {
  const sync = ledger.runtime.identity.defaultSynchronizer.id;
  const res = await fetch(`${ledger.url}/v2/dars?vetAllPackages=${vet}&synchronizerId=${encodeURIComponent(sync)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await ledger.token()}` },
    body: await buildDar({ main: a }),
  });
  expect(res.status, await res.text()).toBe(200);
}

const prepareCreate = (ledger: TestLedger, party: string, templateId: string) =>
  ledger.call('POST', '/v2/interactive-submission/prepare', {
    userId: '',
    commandId: randomUUID(),
    actAs: [party],
    readAs: [],
    synchronizerId: ledger.runtime.identity.defaultSynchronizer.id,
    packageIdSelectionPreference: [],
    verboseHashing: false,
    commands: [{ CreateCommand: { templateId, createArguments: { owner: party, text: 'hi' } } }],
  });

function createdNode(preparedTransaction: string) {
  const pt = PreparedTransaction.fromBinary(Buffer.from(preparedTransaction, 'base64'));
  const node = pt.transaction!.nodes[0].versionedNode;
  if (node.oneofKind !== 'v1' || node.v1.nodeType.oneofKind !== 'create') throw new Error('not a create');
  return node.v1.nodeType.create;
}

describe('template resolution (default)', () => {
  let ledger: TestLedger;
  let alice: { partyId: string; key: TestKey; fingerprint: string };
  const v1 = lfArchive({ name: 'memo', version: '1.0.0' });
  const v2 = lfArchive({ name: 'memo', version: '2.0.0' });
  const v3 = lfArchive({ name: 'memo', version: '3.0.0' });

  beforeAll(async () => {
    ledger = await startTestLedger();
    alice = await onboardExternalParty(ledger, 'alice');
    await actAs(ledger, alice.partyId);
    await uploadTo(ledger, v1);
    await uploadTo(ledger, v2);
    await uploadTo(ledger, v3, false); // stored, not vetted: not preferred
  });
  afterAll(async () => {
    await ledger?.close();
  });

  it('#name resolves to the highest vetted version; the committed events carry its id and name', async () => {
    const r = await prepareCreate(ledger, alice.partyId, '#memo:Main:Memo');
    expect(r.status, r.text).toBe(200);
    const create = createdNode(r.json.preparedTransaction);
    expect(create.templateId).toEqual({ packageId: v2.packageId, moduleName: 'Main', entityName: 'Memo' });
    expect(create.packageName).toBe('memo');

    const hash = Buffer.from(r.json.preparedTransactionHash, 'base64');
    const exec = await ledger.call('POST', '/v2/interactive-submission/executeAndWait', {
      preparedTransaction: r.json.preparedTransaction,
      partySignatures: {
        signatures: [{ party: alice.partyId, signatures: [ed25519Signature(alice.key, hash, alice.fingerprint)] }],
      },
      deduplicationPeriod: { Empty: {} },
      submissionId: randomUUID(),
      userId: '',
      hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
    });
    expect(exec.status, exec.text).toBe(200);
    // The commit suffixes the prepared (local) contract id.
    const row = await ledger.runtime.db
      .selectFrom('contracts')
      .selectAll()
      .where('contract_id', 'like', `${create.contractId}ca12%`)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ package_name: 'memo', template_id: `${v2.packageId}:Main:Memo` });
    const updates = await ledger.call('POST', '/v2/updates', {
      beginExclusive: 0,
      updateFormat: {
        includeTransactions: {
          eventFormat: { filtersByParty: { [alice.partyId]: { cumulative: [] } }, verbose: true },
          transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
        },
      },
    });
    const created = JSON.stringify(updates.json);
    expect(created).toContain(`"representativePackageId":"${v2.packageId}"`);
    expect(created).toContain('"packageName":"memo"');
  });

  it('a stored package id keeps itself and brings its name; unknown names and ids fall back to the generic model', async () => {
    const byId = createdNode(
      (await prepareCreate(ledger, alice.partyId, `${v1.packageId}:Main:Memo`)).json.preparedTransaction,
    );
    expect(byId.templateId!.packageId).toBe(v1.packageId);
    expect(byId.packageName).toBe('memo');
    const unknown = createdNode(
      (await prepareCreate(ledger, alice.partyId, '#never-uploaded:Main:Memo')).json.preparedTransaction,
    );
    expect(unknown.templateId!.packageId).toBe(packageIdForName('never-uploaded'));
    const otherId = 'd'.repeat(64);
    const byUnknownId = createdNode(
      (await prepareCreate(ledger, alice.partyId, `${otherId}:Main:Memo`)).json.preparedTransaction,
    );
    expect(byUnknownId.templateId!.packageId).toBe(otherId);
  });

  it('the preference follows vetting', async () => {
    const sync = ledger.runtime.identity.defaultSynchronizer.id;
    const vet = await ledger.call('POST', '/v2/package-vetting/update', {
      changes: [{ operation: { Vet: { value: { packages: [{ packageId: v3.packageId }] } } } }],
      synchronizerId: sync,
    });
    expect(vet.status, vet.text).toBe(200);
    expect(
      createdNode((await prepareCreate(ledger, alice.partyId, '#memo:Main:Memo')).json.preparedTransaction).templateId!
        .packageId,
    ).toBe(v3.packageId);
  });
});

describe('template resolution with LEDGER_STRICT_PACKAGES=true', () => {
  let ledger: TestLedger;
  let party = '';
  const stored = lfArchive({ name: 'strict-memo', version: '1.0.0', templates: ['Main:Memo', 'Main.Sub:Other'] });
  const unvetted = lfArchive({ name: 'strict-unvetted', version: '1.0.0' });

  beforeAll(async () => {
    ledger = await startTestLedger({ LEDGER_STRICT_PACKAGES: 'true' });
    party = (await onboardExternalParty(ledger, 'strict')).partyId;
    await actAs(ledger, party);
    await uploadTo(ledger, stored);
    await uploadTo(ledger, unvetted, false);
  });
  afterAll(async () => {
    await ledger?.close();
  });

  it('accepts templates of stored packages by name and id', async () => {
    expect((await prepareCreate(ledger, party, '#strict-memo:Main:Memo')).status).toBe(200);
    expect((await prepareCreate(ledger, party, `${stored.packageId}:Main:Memo`)).status).toBe(200);
    expect((await prepareCreate(ledger, party, '#strict-memo:Main.Sub:Other')).status).toBe(200);
    const row = await ledger.runtime.db
      .selectFrom('packages')
      .select('templates')
      .where('package_id', '=', stored.packageId)
      .executeTakeFirstOrThrow();
    expect(row.templates).toEqual(['Main.Sub:Other', 'Main:Memo']);
  });

  it('refuses a template the package does not define', async () => {
    for (const templateId of ['#strict-memo:Main:Nope', `${stored.packageId}:Other:Memo`]) {
      const r = await prepareCreate(ledger, party, templateId);
      expect(r.status, templateId).toBe(404);
      expect(r.json.code).toBe('TEMPLATES_OR_INTERFACES_NOT_FOUND');
    }
  });

  it('refuses an unknown name, a name no vetted package serves, and an unknown package id', async () => {
    const unknown = await prepareCreate(ledger, party, '#never-uploaded:Main:Memo');
    expect({ status: unknown.status, code: unknown.json.code }, unknown.text).toEqual({
      status: 404,
      code: 'PACKAGE_NAMES_NOT_FOUND',
    });
    expect(unknown.json.cause).toBe(
      'The following package names do not match upgradable packages uploaded on this participant: [never-uploaded].',
    );
    const unvettedName = await prepareCreate(ledger, party, '#strict-unvetted:Main:Memo');
    expect({ status: unvettedName.status, code: unvettedName.json.code }, unvettedName.text).toEqual({
      status: 400,
      code: 'JSON_API_PACKAGE_SELECTION_FAILED',
    });
    const templateId = `${'d'.repeat(64)}:Main:Memo`;
    const r = await prepareCreate(ledger, party, templateId);
    expect(r.status).toBe(404);
    expect(r.json).toMatchObject({ code: 'TEMPLATES_OR_INTERFACES_NOT_FOUND', errorCategory: 11 });
  });
});
