import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreparedTransaction } from '@canton-network/core-ledger-proto';
import { expectCantonError } from '../../support/canton-error';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import { versionedPackages, type VersionedPackages } from '../../support/versioned-packages';

/**
 * Package preference with several versions of one package name stored (Daml-LF text packages run by the engine): `#name`
 * picks the preferred vetted version, as the preferred-package endpoints report it; `packageIdSelectionPreference` pins
 * another; an exercise by `#name` of a contract of an older version runs that version's choice (no data upgrade); an
 * exercise by interface id runs the implementation of the contract's template; and the reference's errors.
 */
const MEMO = '#pref-memo:Main:Memo';
const IFACE = '#pref-iface:Iface:Describable';

/** A ledger with pref-memo 1.0.0 and 2.0.0 vetted, 3.0.0 stored unvetted, and a party the admin acts as. */
async function start(env: Record<string, string> = {}) {
  const ledger = await startTestLedger(env);
  const sync = ledger.runtime.identity.defaultSynchronizer.id;
  const upload = async (dar: Buffer, vet = true): Promise<void> => {
    const res = await fetch(`${ledger.url}/v2/dars?vetAllPackages=${vet}&synchronizerId=${encodeURIComponent(sync)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await ledger.token()}` },
      body: dar,
    });
    expect(res.status, await res.text()).toBe(200);
  };
  const alice: string = (await ledger.call('POST', '/v2/parties', { partyIdHint: 'alice', synchronizerId: sync })).json
    .partyDetails.party;
  const rights = await ledger.call('POST', `/v2/users/${ledger.config.adminUser}/rights`, {
    rights: [{ kind: { CanActAs: { value: { party: alice } } } }],
  });
  expect(rights.status, rights.text).toBe(200);
  const pkgs = await versionedPackages(['1.0.0', '2.0.0', '3.0.0']);
  await upload(pkgs.memo['1.0.0'].dar);
  await upload(pkgs.memo['2.0.0'].dar);
  await upload(pkgs.memo['3.0.0'].dar, false); // stored, not vetted: never preferred

  const submit = (commands: unknown[], over: Record<string, unknown> = {}) =>
    ledger.call('POST', '/v2/commands/submit-and-wait-for-transaction', {
      commands: { commands, commandId: randomUUID(), userId: ledger.config.adminUser, actAs: [alice], ...over },
      transactionFormat: {
        transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
        eventFormat: { filtersByParty: { [alice]: { cumulative: [] } }, verbose: true },
      },
    });
  const create = (templateId = MEMO) => ({
    CreateCommand: { templateId, createArguments: { owner: alice, text: 'hi' } },
  });
  const exercise = (templateId: string, contractId: string, choice: string) => ({
    ExerciseCommand: { templateId, contractId, choice, choiceArgument: {} },
  });
  const newMemo = async (over: Record<string, unknown> = {}): Promise<{ contractId: string; templateId: string }> => {
    const r = await submit([create()], over);
    expect(r.status, r.text).toBe(200);
    return r.json.transaction.events[0].CreatedEvent;
  };
  const exercised = async (templateId: string, contractId: string, choice: string) => {
    const r = await submit([exercise(templateId, contractId, choice)]);
    expect(r.status, r.text).toBe(200);
    return r.json.transaction.events[0].ExercisedEvent;
  };
  return { ledger, sync, alice, pkgs, upload, submit, create, exercise, newMemo, exercised };
}

describe('package preference across versions of a package name', () => {
  let t: Awaited<ReturnType<typeof start>>;
  let ledger: TestLedger;
  let sync: string;
  let alice: string;
  let pkgs: VersionedPackages;
  let v1: string;
  let v2: string;
  let v3: string;
  let upload: (dar: Buffer, vet?: boolean) => Promise<void>;

  beforeAll(async () => {
    t = await start();
    ({ ledger, sync, alice, pkgs, upload } = t);
    [v1, v2, v3] = ['1.0.0', '2.0.0', '3.0.0'].map((v) => pkgs.memo[v].packageId);
  });
  afterAll(async () => {
    await t?.ledger.close();
  });

  const submit = (commands: unknown[], over: Record<string, unknown> = {}) => t.submit(commands, over);
  const create = (templateId = MEMO) => t.create(templateId);
  const exercise = (templateId: string, contractId: string, choice: string) =>
    t.exercise(templateId, contractId, choice);
  const newMemo = (over: Record<string, unknown> = {}) => t.newMemo(over);
  const exercised = (templateId: string, contractId: string, choice: string) =>
    t.exercised(templateId, contractId, choice);

  it('#name creates with the preferred vetted version, the one the preferred-package endpoints report', async () => {
    const r = await submit([create()]);
    expect(r.status, r.text).toBe(200);
    expect(r.json.transaction.events[0].CreatedEvent).toMatchObject({
      templateId: `${v2}:Main:Memo`,
      packageName: 'pref-memo',
      representativePackageId: v2,
    });

    const get = await ledger.call(
      'GET',
      `/v2/interactive-submission/preferred-package-version?package-name=pref-memo&parties=${encodeURIComponent(alice)}`,
    );
    expect(get.json.packagePreference.packageReference).toEqual({
      packageId: v2,
      packageName: 'pref-memo',
      packageVersion: '2.0.0',
    });
    const post = await ledger.call('POST', '/v2/interactive-submission/preferred-packages', {
      packageVettingRequirements: [{ parties: [alice], packageName: 'pref-memo' }],
    });
    expect(post.json.packageReferences).toEqual([{ packageId: v2, packageName: 'pref-memo', packageVersion: '2.0.0' }]);
  });

  it('packageIdSelectionPreference pins an older version, on submissions and on prepare', async () => {
    const pinned = await newMemo({ packageIdSelectionPreference: [v1] });
    expect(pinned.templateId).toBe(`${v1}:Main:Memo`);

    const prepared = await ledger.call('POST', '/v2/interactive-submission/prepare', {
      commandId: randomUUID(),
      actAs: [alice],
      synchronizerId: sync,
      packageIdSelectionPreference: [v1],
      commands: [create()],
    });
    expect(prepared.status, prepared.text).toBe(200);
    const node = PreparedTransaction.fromBinary(Buffer.from(prepared.json.preparedTransaction, 'base64')).transaction!
      .nodes[0].versionedNode;
    if (node.oneofKind !== 'v1' || node.v1.nodeType.oneofKind !== 'create') throw new Error('not a create');
    expect(node.v1.nodeType.create.templateId?.packageId).toBe(v1);
    expect(node.v1.nodeType.create.packageName).toBe('pref-memo');

    // A pin of another package name leaves this one's preference alone.
    expect((await newMemo({ packageIdSelectionPreference: [pkgs.iface.packageId] })).templateId).toBe(
      `${v2}:Main:Memo`,
    );
  });

  it('an exercise by #name of an older version’s contract runs that version’s choice', async () => {
    const old = await newMemo({ packageIdSelectionPreference: [v1] });
    const onOld = await exercised(MEMO, old.contractId, 'Describe');
    expect(onOld).toMatchObject({
      templateId: `${v1}:Main:Memo`,
      packageName: 'pref-memo',
      exerciseResult: 'memo 1.0.0',
    });
    const current = await newMemo();
    expect(await exercised(MEMO, current.contractId, 'Describe')).toMatchObject({
      templateId: `${v2}:Main:Memo`,
      exerciseResult: 'memo 2.0.0',
    });

    // A choice only the preferred version has would need the contract upgraded: refused as the engine refuses a contract of another template.
    const bump = await submit([exercise(MEMO, old.contractId, 'Bump')]);
    expect({ status: bump.status, code: bump.json.code }, bump.text).toEqual({
      status: 400,
      code: 'WRONGLY_TYPED_CONTRACT',
    });
    // So is an exercise naming the other version by package id.
    const byId = await submit([exercise(`${v2}:Main:Memo`, old.contractId, 'Describe')]);
    expect(byId.json.code, byId.text).toBe('WRONGLY_TYPED_CONTRACT');
    // Prepare interprets the same way.
    const prepared = await ledger.call('POST', '/v2/interactive-submission/prepare', {
      commandId: randomUUID(),
      actAs: [alice],
      synchronizerId: sync,
      commands: [exercise(MEMO, old.contractId, 'Describe')],
    });
    expect(prepared.status, prepared.text).toBe(200);
    const node = PreparedTransaction.fromBinary(Buffer.from(prepared.json.preparedTransaction, 'base64')).transaction!
      .nodes[0].versionedNode;
    if (node.oneofKind !== 'v1' || node.v1.nodeType.oneofKind !== 'exercise') throw new Error('not an exercise');
    expect(node.v1.nodeType.exercise.templateId?.packageId).toBe(v1);
    // The older version's consuming choice archives it.
    const archived = await exercised(MEMO, old.contractId, 'Archive');
    expect(archived).toMatchObject({ templateId: `${v1}:Main:Memo`, consuming: true });
  });

  it('an exercise by interface id runs the implementation of the contract’s own package', async () => {
    const old = await newMemo({ packageIdSelectionPreference: [v1] });
    expect(await exercised(IFACE, old.contractId, 'Explain')).toMatchObject({
      templateId: `${v1}:Main:Memo`,
      interfaceId: `${pkgs.iface.packageId}:Iface:Describable`,
      exerciseResult: 'implementation of 1.0.0',
    });
    const current = await newMemo();
    expect(await exercised(IFACE, current.contractId, 'Explain')).toMatchObject({
      templateId: `${v2}:Main:Memo`,
      exerciseResult: 'implementation of 2.0.0',
    });
  });

  it('refuses preferences the reference refuses', async () => {
    const refused = async (commands: unknown[], preference: string[], status: number, code: string, cause?: RegExp) => {
      expectCantonError(await submit(commands, { packageIdSelectionPreference: preference }), status, code, { cause });
    };
    const unknown = 'e'.repeat(64);
    // With a #name, the JSON layer resolves the preference.
    await refused(
      [create()],
      [unknown],
      400,
      'JSON_API_PACKAGE_SELECTION_FAILED',
      new RegExp(`Package-id ${unknown} not known`),
    );
    await refused(
      [create()],
      ['not a package id!'],
      400,
      'INVALID_ARGUMENT',
      /packageIdSelectionPreferences: non expected character 0x21/,
    );
    await refused(
      [create()],
      [v3],
      400,
      'JSON_API_PACKAGE_SELECTION_FAILED',
      /No synchronizer satisfies the vetting requirements/,
    );
    // Without one, the commands' validation does.
    await refused(
      [create(`${v2}:Main:Memo`)],
      [unknown],
      400,
      'INVALID_ARGUMENT',
      new RegExp(`user-specified pkg id \\(${unknown}\\) could not be found`),
    );
    await refused(
      [create(`${v2}:Main:Memo`)],
      ['not a package id!'],
      400,
      'INVALID_ARGUMENT',
      /package_id_selection_preference parsing failed/,
    );
    // Two ids of one package name.
    await refused([create()], [v1, v2], 400, 'INVALID_ARGUMENT', /duplicate preference for package-name pref-memo/);
  });

  it('a name whose stored packages are all unvetted is refused, not built by the generic model', async () => {
    const unvetted = (await versionedPackages(['1.0.0'], 'pref-unvetted')).memo['1.0.0'];
    await upload(unvetted.dar, false);
    const r = await submit([create('#pref-unvetted:Main:Memo')]);
    expect({ status: r.status, code: r.json.code }, r.text).toEqual({
      status: 400,
      code: 'JSON_API_PACKAGE_SELECTION_FAILED',
    });
    expect(r.json.cause).toMatch(/No package with package-name 'pref-unvetted' is consistently vetted/);
  });
});

describe('package preference with LEDGER_STRICT_PACKAGES=true', () => {
  let t: Awaited<ReturnType<typeof start>>;

  beforeAll(async () => {
    t = await start({ LEDGER_STRICT_PACKAGES: 'true' });
  });
  afterAll(async () => {
    await t?.ledger.close();
  });

  it('resolves templates and interfaces by #name; refuses unknown names and entities with the reference’s codes', async () => {
    const memo = await t.newMemo();
    expect(memo.templateId).toBe(`${t.pkgs.memo['2.0.0'].packageId}:Main:Memo`);
    expect(await t.exercised(IFACE, memo.contractId, 'Explain')).toMatchObject({
      exerciseResult: 'implementation of 2.0.0',
    });

    const refused = async (commands: unknown[], status: number, code: string) => {
      expectCantonError(await t.submit(commands), status, code);
    };
    await refused(
      [t.exercise('#pref-iface:Iface:Nope', memo.contractId, 'Explain')],
      404,
      'TEMPLATES_OR_INTERFACES_NOT_FOUND',
    );
    await refused([t.create('#never-uploaded:Main:Memo')], 404, 'PACKAGE_NAMES_NOT_FOUND');
  });
});
