import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bootstrapCommandId, checkBootstrapSpec, resolveBootstrapArguments } from '@ledgerline/domain';
import { readBootstrapFile } from '@ledgerline/server/infrastructure/bootstrap-file';
import { loadConfig } from '@ledgerline/server/config';

describe('checkBootstrapSpec', () => {
  it('accepts a complete file and normalizes it', () => {
    const { spec, problems } = checkBootstrapSpec({
      parties: ['alice', { hint: 'bob' }],
      users: [
        {
          id: 'app',
          primaryParty: 'alice',
          rights: [
            { actAs: 'alice' },
            { readAs: 'bob' },
            { executeAs: 'x::1220ab' },
            'participantAdmin',
            'readAsAnyParty',
          ],
        },
      ],
      dars: ['m.dar'],
      contracts: [{ key: 'k', templateId: '#m:Main:T', actAs: 'alice', arguments: { owner: '${alice}' } }],
    });
    expect(problems).toEqual([]);
    expect(spec).toEqual({
      parties: ['alice', 'bob'],
      users: [
        {
          id: 'app',
          primaryParty: 'alice',
          rights: [
            { kind: 'CanActAs', party: 'alice' },
            { kind: 'CanReadAs', party: 'bob' },
            { kind: 'CanExecuteAs', party: 'x::1220ab' },
            { kind: 'ParticipantAdmin' },
            { kind: 'CanReadAsAnyParty' },
          ],
        },
      ],
      dars: ['m.dar'],
      contracts: [
        { key: 'k', templateId: '#m:Main:T', actAs: ['alice'], readAs: [], arguments: { owner: '${alice}' } },
      ],
    });
    expect(checkBootstrapSpec(null)).toEqual({
      spec: { parties: [], users: [], dars: [], contracts: [] },
      problems: [],
    });
  });

  it('reports every defect, one line each, with where it is', () => {
    const { problems } = checkBootstrapSpec({
      parties: ['alice', 'alice', 'bad hint'],
      users: [
        { id: 'a b', rights: [{ actAs: 'carol' }, 'root'] },
        { id: 'ok', colour: 'red' },
      ],
      dars: [3],
      contracts: [
        { templateId: 'Main', actAs: [], arguments: { owner: '${dave}' } },
        { key: 'k', templateId: '#m:Main:T', actAs: 'alice', arguments: [] },
        { key: 'k', templateId: '#m:Main:T', actAs: 'alice', arguments: {} },
      ],
      extra: true,
    });
    expect(problems).toEqual([
      "unknown key 'extra' (expected parties, users, dars, contracts)",
      "parties[1]: party 'alice' is declared twice",
      `parties[2]: a party hint must be 1-185 letters, digits, '_' or '-' (got "bad hint")`,
      'users[0].id: not a valid user id (got "a b")',
      "users[0].rights[0].actAs: party 'carol' is not declared in parties (declare it, or give its full id name::fingerprint)",
      'users[0].rights[1]: a right is one of participantAdmin, identityProviderAdmin, readAsAnyParty, executeAsAnyParty, actAsAnyParty, or {actAs|readAs|executeAs: <party>} (got "root")',
      "users[1]: unknown key 'colour' (expected id, primaryParty, rights)",
      'dars[0]: must be the path of a .dar file (got 3)',
      'contracts[0].templateId: must be <package-id or #package-name>:<Module>:<Entity> (got "Main")',
      'contracts[0].actAs: at least one party must act',
      "contracts[0].arguments.owner: '${dave}' names no declared party",
      'contracts[1].arguments: must be a mapping (the create arguments)',
      "contracts[2]: another contract has the same key 'k' (give each a distinct key)",
    ]);
  });

  it('resolves ${hint} placeholders and derives valid command ids', () => {
    expect(
      resolveBootstrapArguments({ a: '${alice}', b: ['${alice}', 'x'], c: { d: 1, e: 'alice' } }, '1220ff'),
    ).toEqual({
      a: 'alice::1220ff',
      b: ['alice::1220ff', 'x'],
      c: { d: 1, e: 'alice' },
    });
    expect(bootstrapCommandId('any key / with spaces')).toMatch(/^bootstrap-[0-9a-f]{32}$/);
  });
});

describe('the bootstrap file', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'll-bootstrap-unit-'));
  const write = (name: string, text: string) => {
    fs.writeFileSync(path.join(dir, name), text);
    return path.join(dir, name);
  };

  it('YAML and JSON; DAR paths are resolved from the file and must be readable', () => {
    fs.writeFileSync(path.join(dir, 'm.dar'), 'PK');
    expect(readBootstrapFile(write('ok.yaml', 'parties: [alice]\ndars: [m.dar]\n'))).toEqual({
      spec: { parties: ['alice'], users: [], dars: [path.join(dir, 'm.dar')], contracts: [] },
      problems: [],
    });
    expect(readBootstrapFile(write('ok.json', '{"parties": ["bob"]}')).spec?.parties).toEqual(['bob']);
    expect(readBootstrapFile(write('missing.yaml', 'dars: [gone.dar]\n')).problems).toEqual([
      'dars[0]: cannot read gone.dar (ENOENT)',
    ]);
    const syntax = readBootstrapFile(write('bad.yaml', 'parties: [alice\nusers: {'));
    expect(syntax.spec).toBeUndefined();
    expect(syntax.problems.length).toBeGreaterThan(0);
    expect(syntax.problems[0]).toMatch(/^bad\.yaml: .+line \d+/);
    expect(readBootstrapFile(path.join(dir, 'nope.yaml')).problems).toEqual([
      `cannot read ${path.join(dir, 'nope.yaml')} (ENOENT)`,
    ]);
  });

  it('LEDGER_BOOTSTRAP_FILE: its problems are configuration problems, one line each', () => {
    const file = write('invalid.yaml', 'parties: [alice, alice]\nusers: [{id: app, rights: [{actAs: carol}]}]\n');
    expect(() => loadConfig({ LEDGER_BOOTSTRAP_FILE: file })).toThrow(
      [
        'Invalid configuration:',
        "  - LEDGER_BOOTSTRAP_FILE: parties[1]: party 'alice' is declared twice",
        "  - LEDGER_BOOTSTRAP_FILE: users[0].rights[0].actAs: party 'carol' is not declared in parties (declare it, or give its full id name::fingerprint)",
      ].join('\n'),
    );
    expect(loadConfig({ LEDGER_BOOTSTRAP_FILE: write('fine.yaml', 'parties: [alice]\n') }).bootstrap?.parties).toEqual([
      'alice',
    ]);
  });
});
