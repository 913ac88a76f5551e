/**
 * Canton's outputs: the contract id of the external-signing docs' Ping create, recomputed from its node seed; the committed
 * ids of a JSON API transaction, in Canton's suffixed layout.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { contractIdVersionOf, isCantonSuffixedContractId } from '@ledgerline/canton';
import { contractIdV1, deriveContractDiscriminator } from '@ledgerline/daml-lf';
import { conformanceDars } from '../../support/dars';

const dars = conformanceDars();

describe('V1 contract ids against Canton’s fixtures', () => {
  if (!dars.present) {
    it(dars.required ? 'needs LEDGERLINE_CONFORMANCE_DARS under CI' : 'skipped (no conformance DARs)', () => {
      if (dars.required) expect.fail(dars.reason);
    });
    return;
  }

  it('recomputes the Ping create’s contract id from its node seed, preparation time and stakeholders', () => {
    const fixture = JSON.parse(
      fs.readFileSync(path.join(dars.root, 'fixtures', 'docs-external-signing-ping-create.json'), 'utf8'),
    );
    const node = fixture.transaction.nodes[0].v1.create;
    const seed = Buffer.from(
      fixture.transaction.node_seeds.find((s: { node_id: number }) => s.node_id === 0).seed,
      'base64',
    );
    const time = BigInt(fixture.metadata.preparation_time);
    const cid = contractIdV1(deriveContractDiscriminator(seed, time, node.stakeholders));
    expect(cid).toBe(node.contract_id);
    // The stakeholders' order and duplicates do not matter (a sorted set).
    expect(
      contractIdV1(deriveContractDiscriminator(seed, time, [...node.stakeholders].reverse().concat(node.stakeholders))),
    ).toBe(node.contract_id);
    // Any other time gives another id.
    expect(contractIdV1(deriveContractDiscriminator(seed, time + 1n, node.stakeholders))).not.toBe(node.contract_id);
  });

  it('reads the committed ids of a real transaction as Canton-suffixed: 00 ‖ discriminator ‖ ca1x ‖ 1220 ‖ 32 bytes', () => {
    const text = fs.readFileSync(path.join(dars.root, 'fixtures', 'wallet-kernel-1-step-transfer.json'), 'utf8');
    const ids = [...new Set([...text.matchAll(/"contractId":\s*"([0-9a-f]+)"/g)].map((m) => m[1]))];
    expect(ids.length).toBeGreaterThan(1);
    for (const id of ids) {
      expect(id).toHaveLength(138);
      expect(isCantonSuffixedContractId(id)).toBe(true);
      // That participant's protocol version predates 34: AuthenticatedContractIdVersionV11.
      expect(contractIdVersionOf(id)).toBe('V11');
    }
  });
});
