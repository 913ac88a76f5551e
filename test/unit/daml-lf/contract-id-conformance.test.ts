/** Canton's outputs: the contract id of the external-signing docs' Ping create, recomputed from its node seed. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { contractIdV1, deriveContractDiscriminator } from '@ledgerline/daml-lf';
import { conformanceDars } from './conformance-dars';

const dars = conformanceDars('daml-lf contract-id conformance');

describe('V1 contract ids against Canton’s fixtures', () => {
  if (!dars.present) {
    it(dars.required ? 'needs LEDGERLINE_CONFORMANCE_DARS under CI' : 'skipped (no conformance DARs)', () => {
      if (dars.required) expect.fail(dars.reason);
    });
    return;
  }

  it('recomputes the Ping create’s contract id from its node seed, preparation time and stakeholders', () => {
    const fixture = JSON.parse(fs.readFileSync(path.join(dars.dir, 'fixtures', 'docs-external-signing-ping-create.json'), 'utf8'));
    const node = fixture.transaction.nodes[0].v1.create;
    const seed = Buffer.from(fixture.transaction.node_seeds.find((s: { node_id: number }) => s.node_id === 0).seed, 'base64');
    const time = BigInt(fixture.metadata.preparation_time);
    const cid = contractIdV1(deriveContractDiscriminator(seed, time, node.stakeholders));
    expect(cid).toBe(node.contract_id);
    // The stakeholders' order and duplicates do not matter (a sorted set).
    expect(contractIdV1(deriveContractDiscriminator(seed, time, [...node.stakeholders].reverse().concat(node.stakeholders)))).toBe(node.contract_id);
    // Any other time gives another id.
    expect(contractIdV1(deriveContractDiscriminator(seed, time + 1n, node.stakeholders))).not.toBe(node.contract_id);
  });
});
