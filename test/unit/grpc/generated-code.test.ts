import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const GEN = path.join(ROOT, 'libs/grpc/src/gen');

function files(dir: string, base = dir): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) for (const [k, v] of files(p, base)) out.set(k, v);
    else out.set(path.relative(base, p), fs.readFileSync(p, 'utf8'));
  }
  return out;
}

/** libs/grpc/src/gen is generated from libs/grpc/proto (npm run proto:generate); the committed code is that output. */
describe('generated gRPC code', () => {
  it('equals what npm run proto:generate makes from libs/grpc/proto', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'll-proto-'));
    try {
      execFileSync(process.execPath, [path.join(ROOT, 'scripts/proto-generate.js'), dir], { stdio: 'pipe' });
      const fresh = files(path.join(dir, 'src/gen'));
      const committed = files(GEN);
      expect([...committed.keys()].sort()).toEqual([...fresh.keys()].sort());
      for (const [name, text] of fresh) expect(committed.get(name), name).toBe(text);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('covers every service of the Ledger API v2 wire contract', async () => {
    const { ALL_FILES } = await import('@ledgerline/grpc');
    const services = ALL_FILES.flatMap((f) => f.services.map((s) => s.typeName));
    for (const name of [
      'com.daml.ledger.api.v2.CommandService',
      'com.daml.ledger.api.v2.CommandSubmissionService',
      'com.daml.ledger.api.v2.CommandCompletionService',
      'com.daml.ledger.api.v2.StateService',
      'com.daml.ledger.api.v2.UpdateService',
      'com.daml.ledger.api.v2.EventQueryService',
      'com.daml.ledger.api.v2.ContractService',
      'com.daml.ledger.api.v2.PackageService',
      'com.daml.ledger.api.v2.VersionService',
      'com.daml.ledger.api.v2.JoseService',
      'com.daml.ledger.api.v2.interactive.InteractiveSubmissionService',
      'com.daml.ledger.api.v2.admin.PartyManagementService',
      'com.daml.ledger.api.v2.admin.UserManagementService',
      'com.daml.ledger.api.v2.admin.PackageManagementService',
      'com.daml.ledger.api.v2.admin.IdentityProviderConfigService',
      'com.daml.ledger.api.v2.admin.ParticipantPruningService',
      'com.daml.ledger.api.v2.admin.CommandInspectionService',
      'com.daml.ledger.api.v2.testing.TimeService',
    ])
      expect(services).toContain(name);
  });
});
