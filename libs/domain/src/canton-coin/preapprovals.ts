import { parseIsoMicros } from '../ledger/time';

/**
 * The validator's preapproval automation, as a pure decision (Splice's validator app:
 * `AcceptTransferPreapprovalProposalTrigger`): a `TransferPreapprovalProposal` naming the validator operator as
 * provider is accepted, unless its receiver already has a `TransferPreapproval` that has not expired (then nothing is
 * done, as Splice's trigger does) or it expects another DSO (the acceptance would fail). One acceptance per receiver at
 * a time. The preapproval lasts the configuration's free base duration, so the validator pays no fee and gives no inputs.
 */
export interface PreapprovalProposal {
  contractId: string;
  receiver: string;
  provider: string;
  expectedDso: string | null;
}

export interface TransferPreapprovalState {
  receiver: string;
  /** µs since the epoch */
  expiresAt: bigint;
}

export interface PreapprovalAcceptance {
  proposalCid: string;
  receiver: string;
  /** µs since the epoch */
  expiresAt: bigint;
}

export function planPreapprovalAcceptances(
  proposals: readonly PreapprovalProposal[],
  preapprovals: readonly TransferPreapprovalState[],
  at: { validator: string; dso: string; nowMicros: bigint; lifetimeMicros: bigint },
): PreapprovalAcceptance[] {
  const covered = new Set(preapprovals.filter((p) => p.expiresAt > at.nowMicros).map((p) => p.receiver));
  const accepted: PreapprovalAcceptance[] = [];
  for (const p of proposals) {
    if (p.provider !== at.validator || (p.expectedDso !== null && p.expectedDso !== at.dso) || covered.has(p.receiver))
      continue;
    covered.add(p.receiver);
    accepted.push({ proposalCid: p.contractId, receiver: p.receiver, expiresAt: at.nowMicros + at.lifetimeMicros });
  }
  return accepted;
}

interface ProposalArgument {
  receiver: string;
  provider: string;
  expectedDso?: string | null;
}

export function preapprovalProposalOf(contractId: string, createArgument: unknown): PreapprovalProposal {
  const arg = createArgument as ProposalArgument;
  return { contractId, receiver: arg.receiver, provider: arg.provider, expectedDso: arg.expectedDso ?? null };
}

export function transferPreapprovalOf(createArgument: unknown): TransferPreapprovalState {
  const arg = createArgument as { receiver: string; expiresAt: string };
  return { receiver: arg.receiver, expiresAt: parseIsoMicros(arg.expiresAt) };
}
