import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCantonError } from '../../support/canton-error';
import { startTestLedger, type TestLedger } from '../../support/ledger';
import { buildDar, lfArchive, type TestArchive } from '../../support/dars';
import { defaultSynchronizer, ledgerEnd } from '../../support/external-party';

/**
 * Templates of submitted commands resolve as prepare resolves them: `#name` to the preferred vetted package, whose id and
 * name the committed events carry; with LEDGER_STRICT_PACKAGES unknown packages and templates are refused synchronously,
 * in the JSON layer (before authorization), on submit-and-wait and async submit alike.
 */
async function start(env: Record<string, string> = {}): Promise<{ ledger: TestLedger; sync: string; alice: string }> {
  const ledger = await startTestLedger(env);
  const sync = await defaultSynchronizer(ledger);
  const alice = (await ledger.call('POST', '/v2/parties', { partyIdHint: 'alice', synchronizerId: sync })).json
    .partyDetails.party as string;
  await ledger.call('POST', '/v2/users', {
    user: { id: 'app' },
    rights: [{ kind: { CanActAs: { value: { party: alice } } } }],
  });
  await ledger.call('POST', '/v2/users', { user: { id: 'nobody' } });
  return { ledger, sync, alice };
}

async function upload(ledger: TestLedger, sync: string, a: TestArchive, vet = true): Promise<void> {
  const res = await fetch(`${ledger.url}/v2/dars?vetAllPackages=${vet}&synchronizerId=${encodeURIComponent(sync)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await ledger.token()}` },
    body: await buildDar({ main: a }),
  });
  expect(res.status, await res.text()).toBe(200);
}

let n = 0;
const commands = (cmds: unknown[], actAs: string, over: Record<string, unknown> = {}) => ({
  commands: cmds,
  commandId: `tmpl-${n++}`,
  actAs: [actAs],
  ...over,
});
const create = (templateId: string, owner: string) => ({
  CreateCommand: { templateId, createArguments: { owner, text: 'hi' } },
});

describe('command templates against the package store', () => {
  let ledger: TestLedger;
  let sync: string;
  let alice: string;
  const v1 = lfArchive({ name: 'cmd-memo', version: '1.0.0' });
  const v2 = lfArchive({ name: 'cmd-memo', version: '2.0.0' });
  const v3 = lfArchive({ name: 'cmd-memo', version: '3.0.0' });

  beforeAll(async () => {
    ({ ledger, sync, alice } = await start());
    await upload(ledger, sync, v1);
    await upload(ledger, sync, v2);
    await upload(ledger, sync, v3, false); // stored, not vetted: not preferred
  });
  afterAll(async () => {
    await ledger?.close();
  });

  it('#name on submit-and-wait-for-transaction: the preferred vetted package; the events carry its id and name', async () => {
    const r = await ledger.call(
      'POST',
      '/v2/commands/submit-and-wait-for-transaction',
      { commands: commands([create('#cmd-memo:Main:Memo', alice)], alice) },
      { as: 'app' },
    );
    expect(r.status, r.text).toBe(200);
    const created = r.json.transaction.events[0].CreatedEvent;
    expect(created).toMatchObject({
      templateId: `${v2.packageId}:Main:Memo`,
      packageName: 'cmd-memo',
      representativePackageId: v2.packageId,
    });
    const row = await ledger.runtime.db
      .selectFrom('contracts')
      .selectAll()
      .where('contract_id', '=', created.contractId)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ package_name: 'cmd-memo', template_id: `${v2.packageId}:Main:Memo` });

    // The contract is exercised by the same #name, and by its package id.
    const archive = (templateId: string, contractId: string) => ({
      ExerciseCommand: { templateId, contractId, choice: 'Archive', choiceArgument: {} },
    });
    const byName = await ledger.call(
      'POST',
      '/v2/commands/submit-and-wait',
      commands([archive('#cmd-memo:Main:Memo', created.contractId)], alice),
      { as: 'app' },
    );
    expect(byName.status, byName.text).toBe(200);
    const other = await ledger.call(
      'POST',
      '/v2/commands/submit-and-wait-for-transaction',
      { commands: commands([create(`${v1.packageId}:Main:Memo`, alice)], alice) },
      { as: 'app' },
    );
    expect(other.json.transaction.events[0].CreatedEvent).toMatchObject({
      templateId: `${v1.packageId}:Main:Memo`,
      packageName: 'cmd-memo',
    });
  });

  it('#name on async/submit: the committed contract has the preferred package', async () => {
    const count = async () =>
      (
        await ledger.runtime.db
          .selectFrom('contracts')
          .select('contract_id')
          .where('template_id', '=', `${v2.packageId}:Main:Memo`)
          .where('package_name', '=', 'cmd-memo')
          .execute()
      ).length;
    const before = await count();
    const r = await ledger.call(
      'POST',
      '/v2/commands/async/submit',
      commands([create('#cmd-memo:Main:Memo', alice)], alice),
      { as: 'app' },
    );
    expect(r.status, r.text).toBe(200);
    expect(await count()).toBe(before + 1);
  });

  it('the preference follows vetting; unknown names fall back to the generic model', async () => {
    const vet = await ledger.call('POST', '/v2/package-vetting/update', {
      changes: [{ operation: { Vet: { value: { packages: [{ packageId: v3.packageId }] } } } }],
      synchronizerId: sync,
    });
    expect(vet.status, vet.text).toBe(200);
    const r = await ledger.call(
      'POST',
      '/v2/commands/submit-and-wait-for-transaction',
      { commands: commands([create('#cmd-memo:Main:Memo', alice)], alice) },
      { as: 'app' },
    );
    expect(r.json.transaction.events[0].CreatedEvent.templateId).toBe(`${v3.packageId}:Main:Memo`);
    const unknown = await ledger.call(
      'POST',
      '/v2/commands/submit-and-wait-for-transaction',
      { commands: commands([create('#never-uploaded:Main:Memo', alice)], alice) },
      { as: 'app' },
    );
    expect(unknown.status, unknown.text).toBe(200);
    expect(unknown.json.transaction.events[0].CreatedEvent.packageName).toBe('never-uploaded');
  });
});

describe('command templates with LEDGER_STRICT_PACKAGES=true', () => {
  let ledger: TestLedger;
  let sync: string;
  let alice: string;
  const stored = lfArchive({ name: 'cmd-strict', version: '1.0.0', templates: ['Main:Memo'] });
  const unvetted = lfArchive({ name: 'cmd-strict-unvetted', version: '1.0.0', templates: ['Main:Memo'] });

  beforeAll(async () => {
    ({ ledger, sync, alice } = await start({ LEDGER_STRICT_PACKAGES: 'true' }));
    await upload(ledger, sync, stored);
    await upload(ledger, sync, unvetted, false);
  });
  afterAll(async () => {
    await ledger?.close();
  });

  /** A synchronous refusal: its status and code, and no completion (the ledger end is unchanged). */
  async function refused(path: string, body: unknown, status: number, code: string, as = 'app') {
    const before = await ledgerEnd(ledger);
    const r = await ledger.call('POST', `/v2/commands/${path}`, body, { as });
    expectCantonError(r, status, code);
    expect(await ledgerEnd(ledger)).toBe(before);
  }

  it('accepts a template of a stored, vetted package by name and by id', async () => {
    for (const templateId of ['#cmd-strict:Main:Memo', `${stored.packageId}:Main:Memo`]) {
      const r = await ledger.call(
        'POST',
        '/v2/commands/submit-and-wait',
        commands([create(templateId, alice)], alice),
        { as: 'app' },
      );
      expect(r.status, r.text).toBe(200);
    }
  });

  it('refuses unknown packages and templates on submit-and-wait and async/submit, before authorization', async () => {
    for (const path of ['submit-and-wait', 'async/submit']) {
      await refused(
        path,
        commands([create('#never-uploaded:Main:Memo', alice)], alice),
        404,
        'PACKAGE_NAMES_NOT_FOUND',
      );
      await refused(
        path,
        commands([create('#cmd-strict-unvetted:Main:Memo', alice)], alice),
        400,
        'JSON_API_PACKAGE_SELECTION_FAILED',
      );
      await refused(
        path,
        commands([create('#cmd-strict:Main:Nope', alice)], alice),
        404,
        'TEMPLATES_OR_INTERFACES_NOT_FOUND',
      );
      await refused(
        path,
        commands([create(`${'d'.repeat(64)}:Main:Memo`, alice)], alice),
        404,
        'TEMPLATES_OR_INTERFACES_NOT_FOUND',
      );
      // The JSON layer answers first: a caller without rights learns of the unknown template, not of its rights.
      await refused(
        path,
        commands([create('#cmd-strict:Main:Nope', alice)], alice),
        404,
        'TEMPLATES_OR_INTERFACES_NOT_FOUND',
        'nobody',
      );
    }
    // An exercise names its template too.
    const archive = {
      ExerciseCommand: {
        templateId: '#cmd-strict:Other:Memo',
        contractId: '00' + 'ab'.repeat(32),
        choice: 'Archive',
        choiceArgument: {},
      },
    };
    await refused('submit-and-wait', commands([archive], alice), 404, 'TEMPLATES_OR_INTERFACES_NOT_FOUND');
    // With a #name, a malformed synchronizer id is the JSON layer's INVALID_FIELD.
    await refused(
      'submit-and-wait',
      commands([create('#never-uploaded:Main:Memo', alice)], alice, { synchronizerId: 'garbage' }),
      400,
      'INVALID_FIELD',
    );
  });

  it('submit-and-wait-for-transaction refuses as well', async () => {
    await refused(
      'submit-and-wait-for-transaction',
      { commands: commands([create('#never-uploaded:Main:Memo', alice)], alice) },
      404,
      'PACKAGE_NAMES_NOT_FOUND',
    );
  });
});
