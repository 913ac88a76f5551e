import { describe, expect, it } from 'vitest';
import { planPreapprovalAcceptances, type PreapprovalProposal } from '@ledgerline/domain';

const at = { validator: 'validator::ns', dso: 'DSO::ns', nowMicros: 1_000n, lifetimeMicros: 500n };
const proposal = (cid: string, receiver: string, extra: Partial<PreapprovalProposal> = {}): PreapprovalProposal => ({
  contractId: cid,
  receiver,
  provider: at.validator,
  expectedDso: at.dso,
  ...extra,
});

describe('planPreapprovalAcceptances (the validator accepting TransferPreapprovalProposals)', () => {
  it('accepts a proposal naming the validator as provider, for the configured lifetime from now', () => {
    expect(planPreapprovalAcceptances([proposal('p1', 'alice')], [], at)).toEqual([
      { proposalCid: 'p1', receiver: 'alice', expiresAt: 1_500n },
    ]);
  });

  it('leaves proposals to other providers, and those expecting another DSO; accepts one with no expected DSO', () => {
    const plan = planPreapprovalAcceptances(
      [
        proposal('other', 'a', { provider: 'someone::ns' }),
        proposal('wrongDso', 'b', { expectedDso: 'DSO::elsewhere' }),
        proposal('old', 'c', { expectedDso: null }),
      ],
      [],
      at,
    );
    expect(plan.map((p) => p.proposalCid)).toEqual(['old']);
  });

  it('does nothing for a receiver whose preapproval has not expired; accepts again once it has', () => {
    expect(
      planPreapprovalAcceptances([proposal('p', 'alice')], [{ receiver: 'alice', expiresAt: 1_001n }], at),
    ).toEqual([]);
    expect(
      planPreapprovalAcceptances([proposal('p', 'alice')], [{ receiver: 'alice', expiresAt: 1_000n }], at).map(
        (p) => p.proposalCid,
      ),
    ).toEqual(['p']);
  });

  it('accepts one proposal per receiver at a time', () => {
    const plan = planPreapprovalAcceptances(
      [proposal('p1', 'alice'), proposal('p2', 'alice'), proposal('p3', 'bob')],
      [],
      at,
    );
    expect(plan.map((p) => p.proposalCid)).toEqual(['p1', 'p3']);
  });
});
