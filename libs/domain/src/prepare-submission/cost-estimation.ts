/**
 * Prepare's traffic cost estimate (`costEstimation`, Canton 3.4.4 and later): what the sequencer would charge for the
 * transaction's confirmation request and its confirmation response, by Canton's cost rule
 * (`sequencing/traffic/EventCostCalculator.scala`) at Canton's default traffic control parameters
 * (`sequencing/TrafficControlParameters.scala`: read-vs-write scaling factor 200 per ten thousand, base event cost 0).
 *
 * Canton builds the real confirmation request (encrypted views, session keys, mock signatures:
 * `participant/traffic/TrafficCostEstimator.scala`) and sizes it; Ledgerline has no synchronizer, so it sizes an estimated
 * request instead: the prepared transaction's encoded bytes plus the signatures the submission will carry (Canton's
 * approximate size per algorithm, `crypto/Signing.scala`), and a confirmation response of the executing participant
 * approving the root view. The figures are an estimate, documented in docs/using-the-api.md. Pure.
 */
import { invalidField } from '../errors';

/** Canton's default traffic control parameters (TrafficControlParameters.DefaultReadVsWriteScalingFactor, DefaultBaseEventCost). */
export const DEFAULT_TRAFFIC_PARAMETERS = { readVsWriteScalingFactor: 200, baseEventCost: 0 } as const;

export type TrafficParameters = { readonly readVsWriteScalingFactor: number; readonly baseEventCost: number };

/** The signing algorithms Canton's CryptoValidator.validateSigningAlgorithmSpec accepts, and their approximate signature size. */
export const SIGNATURE_BYTES: Readonly<Record<string, number>> = {
  SIGNING_ALGORITHM_SPEC_ED25519: 64,
  SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256: 64,
  SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384: 96,
};

/** A registered key's spec → the algorithm that signs with it (Canton's `supportedSigningKeySpecs`). */
const ALGORITHM_OF_KEY_SPEC: Readonly<Record<string, string>> = {
  SIGNING_KEY_SPEC_EC_CURVE25519: 'SIGNING_ALGORITHM_SPEC_ED25519',
  SIGNING_KEY_SPEC_EC_P256: 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256',
  SIGNING_KEY_SPEC_EC_SECP256K1: 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256',
  SIGNING_KEY_SPEC_EC_P384: 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384',
};

/** `estimateTrafficCost` of a prepare request (CostEstimationHints), decoded. */
export interface CostEstimationHintsInput {
  disabled: boolean;
  /** SigningAlgorithmSpec enum names. */
  expectedSignatures: string[];
}

/** The validated hints: null when estimation is disabled; else the expected algorithms (empty: from the parties' keys). */
export type CostEstimationHints = { expectedSignatures: string[] } | null;

/**
 * Canton's CostEstimationHints.fromProto: disabled → no estimate (the hints are not looked at); otherwise every expected
 * signature must name Ed25519, ECDSA SHA-256 or ECDSA SHA-384 (else INVALID_FIELD `estimate_traffic_cost`).
 */
export function validateCostEstimationHints(h: CostEstimationHintsInput | null): CostEstimationHints {
  if (h?.disabled) return null;
  const expected = h?.expectedSignatures ?? [];
  for (const s of expected)
    if (SIGNATURE_BYTES[s] === undefined)
      throw invalidField('estimate_traffic_cost', `Signing algorithm spec ${s} not supported`);
  return { expectedSignatures: expected };
}

/** An actAs party's registered signing keys (external parties; a local party has none). */
export interface PartyKeysForEstimate {
  threshold: number;
  /** In the order the estimate takes them. */
  keySpecs: readonly string[];
}

/**
 * The signatures a submission of these actAs parties carries (TrafficCostEstimator.mockSignatures): for each party with
 * signing keys, the hinted algorithms when there are hints, else threshold-many of its keys whose spec a supported
 * algorithm signs; a party without keys signs nothing. Sizes in bytes.
 */
export function expectedSignatureSizes(
  actAs: readonly string[],
  keysOf: ReadonlyMap<string, PartyKeysForEstimate>,
  hints: { expectedSignatures: readonly string[] },
): number[] {
  const out: number[] = [];
  for (const party of new Set(actAs)) {
    const keys = keysOf.get(party);
    if (!keys || keys.keySpecs.length === 0) continue;
    const algorithms = hints.expectedSignatures.length
      ? hints.expectedSignatures
      : keys.keySpecs
          .map((s) => ALGORITHM_OF_KEY_SPEC[s])
          .filter((a): a is string => a !== undefined)
          .slice(0, keys.threshold);
    for (const a of algorithms) out.push(SIGNATURE_BYTES[a]);
  }
  return out;
}

/** Canton's EventCostCalculator for one envelope: `bytes + bytes × recipients × scalingFactor / 10 000` (integer division). */
export function envelopeCost(bytes: number, recipients: number, params: TrafficParameters): number {
  return bytes + Math.floor((bytes * recipients * params.readVsWriteScalingFactor) / 10_000);
}

/** Protobuf length-delimited field: tag, length varint, payload. */
const varintBytes = (n: number) => {
  let b = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    b++;
  }
  return b;
};
const lengthDelimited = (payloadBytes: number) => 1 + varintBytes(payloadBytes) + payloadBytes;
const stringField = (s: string) => lengthDelimited(Buffer.byteLength(s));
/** A fingerprint: `1220` + 64 hex digits. */
const FINGERPRINT_CHARS = 68;

/** A Signature message in a repeated field: format, signature bytes, signed-by fingerprint, algorithm. */
export const signatureEnvelopeBytes = (signatureBytes: number) =>
  lengthDelimited(2 + lengthDelimited(signatureBytes) + lengthDelimited(FINGERPRINT_CHARS) + 2);

/** What the estimate is made from. */
export interface CostEstimateInput {
  /** The prepared transaction's encoded size. */
  preparedTransactionBytes: number;
  /** Sizes of the signatures the submission will carry (see `expectedSignatureSizes`). */
  signatureSizes: readonly number[];
  /** The participant's unique identifier `name::fingerprint` (its admin party). */
  participantId: string;
  synchronizerId: string;
  /** The parties that confirm: the actAs parties (all hosted here). */
  confirmingParties: readonly string[];
  /** µs: the estimate's timestamp. */
  now: bigint;
  params?: TrafficParameters;
}

export interface CostEstimate {
  confirmationRequestTrafficCostEstimation: number;
  confirmationResponseTrafficCostEstimation: number;
  totalTrafficCostEstimation: number;
  /** µs */
  estimationTimestamp: bigint;
}

/** Recipients of the request (the executing participant's views and the mediator's root hash message) and of the response (the mediator). */
const REQUEST_RECIPIENTS = 2;
const RESPONSE_RECIPIENTS = 1;
/** Version wrappers, request id (a timestamp), view position and verdict of a confirmation response. */
const RESPONSE_FIXED_BYTES = 24;
/** A root hash: a 34-byte multihash. */
const ROOT_HASH_BYTES = lengthDelimited(34);

/**
 * The estimate (sizes in bytes, costs in traffic units):
 * - request = prepared transaction bytes + Σ signature envelopes (each signature’s size + about 80 bytes of framing: format,
 *   fingerprint, algorithm), sent to 2 recipients;
 * - response = a signed ConfirmationResponses of this participant approving the root view for its admin party and the
 *   actAs parties (root hash, synchronizer and participant ids, the parties, an Ed25519 signature), sent to 1 recipient;
 * each costed by `envelopeCost`, plus the base event cost.
 */
export function estimateTrafficCost(input: CostEstimateInput): CostEstimate {
  const params = input.params ?? DEFAULT_TRAFFIC_PARAMETERS;
  const requestBytes =
    input.preparedTransactionBytes + input.signatureSizes.reduce((s, n) => s + signatureEnvelopeBytes(n), 0);
  const parties = [...new Set([input.participantId, ...input.confirmingParties])];
  const responseBytes =
    RESPONSE_FIXED_BYTES +
    ROOT_HASH_BYTES +
    stringField(input.synchronizerId) +
    stringField(`PAR::${input.participantId}`) +
    parties.reduce((s, p) => s + stringField(p), 0) +
    signatureEnvelopeBytes(SIGNATURE_BYTES.SIGNING_ALGORITHM_SPEC_ED25519);
  const request = envelopeCost(requestBytes, REQUEST_RECIPIENTS, params) + params.baseEventCost;
  const response = envelopeCost(responseBytes, RESPONSE_RECIPIENTS, params) + params.baseEventCost;
  return {
    confirmationRequestTrafficCostEstimation: request,
    confirmationResponseTrafficCostEstimation: response,
    totalTrafficCostEstimation: request + response,
    estimationTimestamp: input.now,
  };
}
