import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BootstrapService } from '@ledgerline/server/modules/bootstrap/bootstrap.service';
import { buildDar, lfArchive } from '../../support/dars';
import { ledgerEnd, startTestLedger, type TestLedger } from '../../support/ledger';

/**
 * The declarative bootstrap file applied in process (what main.ts does before it opens the port): everything it names
 * is created once; a second application (a restart) adds nothing; an entry the ledger refuses is reported, one line.
 */
let ledger: TestLedger;
let dir: string;
const model = lfArchive({ name: 'boot-model', version: '1.0.0' });

const FILE = `# parties are hints; users, rights and contracts refer to them
parties: [alice, bob]
users:
  - id: alice-app
    primaryParty: alice
    rights: [{ actAs: alice }, { readAs: bob }]
  - id: ops
    rights: [participantAdmin]
dars: [./model.dar]
contracts:
  - key: memo-1
    templateId: "#boot-model:Main:Memo"
    actAs: alice
    arguments: { owner: "\${alice}", reader: "\${bob}", note: hello }
  - templateId: "#boot-model:Main:Memo"
    actAs: [bob]
    arguments: { owner: "\${bob}", tags: [a, b] }
`;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'll-bootstrap-'));
  fs.writeFileSync(path.join(dir, 'model.dar'), await buildDar({ main: model }));
  fs.writeFileSync(path.join(dir, 'ledger.yaml'), FILE);
  ledger = await startTestLedger({ LEDGER_BOOTSTRAP_FILE: path.join(dir, 'ledger.yaml') });
  expect(
    (
      await ledger.call('POST', '/v2/users', {
        user: { id: 'reader' },
        rights: [{ kind: { CanReadAsAnyParty: { value: {} } } }],
      })
    ).status,
  ).toBe(200);
});
afterAll(async () => {
  await ledger?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const apply = () => ledger.app.get(BootstrapService).apply(ledger.config.bootstrap!);
const acs = async (party: string) => {
  const end = await ledgerEnd(ledger);
  const r = await ledger.call(
    'POST',
    '/v2/state/active-contracts',
    { activeAtOffset: end, eventFormat: { filtersByParty: { [party]: { cumulative: [] } } } },
    { as: 'reader' },
  );
  expect(r.status, r.text).toBe(200);
  return (r.json as any[]).map((e) => e.contractEntry.JsActiveContract.createdEvent);
};

describe('bootstrap file', () => {
  it('creates the parties, users and rights, DAR and contracts it names', async () => {
    expect(await apply()).toEqual({
      partiesAllocated: 2,
      usersCreated: 2,
      darsUploaded: 1,
      contractsCreated: 2,
      problems: [],
    });
    const ns = ledger.runtime.identity.fingerprint;
    const [alice, bob] = [`alice::${ns}`, `bob::${ns}`];
    const parties = (await ledger.call('GET', '/v2/parties')).json.partyDetails.map((p: any) => p.party);
    expect(parties).toEqual(expect.arrayContaining([alice, bob]));
    const user = (await ledger.call('GET', '/v2/users/alice-app')).json.user;
    expect(user.primaryParty).toBe(alice);
    const rights = (await ledger.call('GET', '/v2/users/alice-app/rights')).json.rights;
    expect(rights).toEqual(
      expect.arrayContaining([
        { kind: { CanActAs: { value: { party: alice } } } },
        { kind: { CanReadAs: { value: { party: bob } } } },
      ]),
    );
    expect((await ledger.call('GET', '/v2/users/ops/rights')).json.rights).toEqual([
      { kind: { ParticipantAdmin: { value: {} } } },
    ]);
    expect((await ledger.call('GET', '/v2/packages')).json.packageIds).toContain(model.packageId);
    const [memo] = await acs(alice);
    expect(memo).toMatchObject({
      signatories: [alice],
      observers: [bob],
      packageName: 'boot-model',
      createArgument: { owner: alice, reader: bob, note: 'hello' },
    });
    expect((await acs(bob)).map((c) => c.createArgument)).toEqual(
      expect.arrayContaining([{ owner: bob, tags: ['a', 'b'] }]),
    );
  });

  it('applied again (a restart), it adds nothing: same ledger end, same contracts', async () => {
    const end = await ledgerEnd(ledger);
    const before = (await acs(`bob::${ledger.runtime.identity.fingerprint}`)).length;
    expect(await apply()).toEqual({
      partiesAllocated: 0,
      usersCreated: 0,
      darsUploaded: 1,
      contractsCreated: 0,
      problems: [],
    });
    expect(await ledgerEnd(ledger)).toBe(end);
    expect((await acs(`bob::${ledger.runtime.identity.fingerprint}`)).length).toBe(before);
  });

  it('grants a listed right an existing user lacks; reports an entry the ledger refuses, one line each', async () => {
    const spec = structuredClone(ledger.config.bootstrap!);
    spec.users[1].rights.push({ kind: 'CanReadAsAnyParty' });
    spec.contracts.push({
      key: 'stranger',
      templateId: '#boot-model:Main:Memo',
      actAs: ['nobody::1220' + 'ab'.repeat(32)],
      readAs: [],
      arguments: {},
    });
    const report = await ledger.app.get(BootstrapService).apply(spec);
    expect(report.problems).toHaveLength(1);
    expect(report.problems[0]).toMatch(/^contracts\[2\] 'stranger': [A-Z_]+: /);
    expect((await ledger.call('GET', '/v2/users/ops/rights')).json.rights).toEqual(
      expect.arrayContaining([
        { kind: { ParticipantAdmin: { value: {} } } },
        { kind: { CanReadAsAnyParty: { value: {} } } },
      ]),
    );
  });
});
