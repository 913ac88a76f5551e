import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TRAFFIC_PARAMETERS,
  envelopeCost,
  estimateTrafficCost,
  expectedSignatureSizes,
  isLedgerError,
  signatureEnvelopeBytes,
  validateCostEstimationHints,
} from '@ledgerline/domain';

const PARTICIPANT = `participant1::1220${'a'.repeat(64)}`;
const SYNC = `global::1220${'b'.repeat(64)}`;
const alice = `alice::1220${'c'.repeat(64)}`;
const bob = `bob::1220${'d'.repeat(64)}`;

describe("Canton's envelope cost rule", () => {
  // Canton's EventCostCalculatorTest: bytes + bytes × recipients × factor / 10 000.
  it('5 bytes to 2 recipients at factor 5000 cost 10', () => {
    expect(envelopeCost(5, 2, { readVsWriteScalingFactor: 5000, baseEventCost: 0 })).toBe(10);
  });
  it('25 000 bytes to 500 recipients at factor 200 cost 275 000 (no 32-bit overflow)', () => {
    expect(envelopeCost(25_000, 500, DEFAULT_TRAFFIC_PARAMETERS)).toBe(275_000);
  });
  it('the read cost is rounded down', () => {
    // 999 × 2 × 200 / 10 000 = 39.96
    expect(envelopeCost(999, 2, DEFAULT_TRAFFIC_PARAMETERS)).toBe(999 + 39);
  });
});

describe('cost estimation hints', () => {
  it('absent or without expected signatures: estimate from the registered keys', () => {
    expect(validateCostEstimationHints(null)).toEqual({ expectedSignatures: [] });
    expect(validateCostEstimationHints({ disabled: false, expectedSignatures: [] })).toEqual({
      expectedSignatures: [],
    });
  });
  it('disabled: no estimate, whatever the hints name', () => {
    expect(
      validateCostEstimationHints({ disabled: true, expectedSignatures: ['SIGNING_ALGORITHM_SPEC_ML_DSA_65'] }),
    ).toBe(null);
  });
  it.each(['SIGNING_ALGORITHM_SPEC_UNSPECIFIED', 'SIGNING_ALGORITHM_SPEC_ML_DSA_65', 'UNRECOGNIZED'])(
    '%s is INVALID_FIELD estimate_traffic_cost (CryptoValidator.validateSigningAlgorithmSpec)',
    (spec) => {
      let err: unknown;
      try {
        validateCostEstimationHints({ disabled: false, expectedSignatures: ['SIGNING_ALGORITHM_SPEC_ED25519', spec] });
      } catch (e) {
        err = e;
      }
      expect(isLedgerError(err)).toBe(true);
      expect((err as { code: string }).code).toBe('INVALID_FIELD');
      expect((err as Error).message).toContain('estimate_traffic_cost');
      expect((err as Error).message).toContain(`Signing algorithm spec ${spec} not supported`);
    },
  );
});

describe('expected signatures', () => {
  const keys = new Map([
    [
      alice,
      {
        threshold: 2,
        keySpecs: ['SIGNING_KEY_SPEC_EC_P384', 'SIGNING_KEY_SPEC_EC_CURVE25519', 'SIGNING_KEY_SPEC_EC_P256'],
      },
    ],
  ]);
  it('without hints: threshold-many of the party’s keys, sized by their algorithm; a local party signs nothing', () => {
    expect(expectedSignatureSizes([alice, bob], keys, { expectedSignatures: [] })).toEqual([96, 64]);
  });
  it('with hints: the hinted algorithms for each party with keys', () => {
    const hinted = {
      expectedSignatures: [
        'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384',
        'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384',
        'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256',
      ],
    };
    expect(expectedSignatureSizes([alice, bob, alice], keys, hinted)).toEqual([96, 96, 64]);
  });
  it('keys no supported algorithm signs with are skipped', () => {
    const mldsa = new Map([
      [alice, { threshold: 1, keySpecs: ['SIGNING_KEY_SPEC_ML_DSA_65', 'SIGNING_KEY_SPEC_EC_P256'] }],
    ]);
    expect(expectedSignatureSizes([alice], mldsa, { expectedSignatures: [] })).toEqual([64]);
  });
});

describe('the estimate', () => {
  const base = {
    preparedTransactionBytes: 1000,
    signatureSizes: [] as number[],
    participantId: PARTICIPANT,
    synchronizerId: SYNC,
    confirmingParties: [alice],
    now: 1_767_225_600_000_000n,
  };
  it('request: the prepared transaction and its signatures to two recipients; total = request + response', () => {
    const e = estimateTrafficCost({ ...base, signatureSizes: [64] });
    const bytes = 1000 + signatureEnvelopeBytes(64);
    expect(signatureEnvelopeBytes(64)).toBe(64 + 79);
    expect(e.confirmationRequestTrafficCostEstimation).toBe(bytes + Math.floor((bytes * 2 * 200) / 10_000));
    expect(e.totalTrafficCostEstimation).toBe(
      e.confirmationRequestTrafficCostEstimation + e.confirmationResponseTrafficCostEstimation,
    );
    expect(e.estimationTimestamp).toBe(base.now);
  });
  it('grows with the transaction and the signatures; the response with the confirming parties', () => {
    const small = estimateTrafficCost(base);
    const big = estimateTrafficCost({ ...base, preparedTransactionBytes: 5000 });
    const signed = estimateTrafficCost({ ...base, signatureSizes: [96, 96] });
    const twoParties = estimateTrafficCost({ ...base, confirmingParties: [alice, bob] });
    expect(big.confirmationRequestTrafficCostEstimation).toBeGreaterThan(
      small.confirmationRequestTrafficCostEstimation,
    );
    expect(signed.confirmationRequestTrafficCostEstimation - small.confirmationRequestTrafficCostEstimation).toBe(
      envelopeCost(1000 + 2 * signatureEnvelopeBytes(96), 2, DEFAULT_TRAFFIC_PARAMETERS) -
        envelopeCost(1000, 2, DEFAULT_TRAFFIC_PARAMETERS),
    );
    expect(big.confirmationResponseTrafficCostEstimation).toBe(small.confirmationResponseTrafficCostEstimation);
    expect(twoParties.confirmationResponseTrafficCostEstimation).toBeGreaterThan(
      small.confirmationResponseTrafficCostEstimation,
    );
  });
  it('a base event cost is added to each message', () => {
    const params = { readVsWriteScalingFactor: 200, baseEventCost: 7 };
    const a = estimateTrafficCost(base);
    const b = estimateTrafficCost({ ...base, params });
    expect(b.confirmationRequestTrafficCostEstimation).toBe(a.confirmationRequestTrafficCostEstimation + 7);
    expect(b.totalTrafficCostEstimation).toBe(a.totalTrafficCostEstimation + 14);
  });
});
