import { invalidArgument, invalidField } from '../errors';

/**
 * Party ids and party-id hints (Canton's ApiPartyManagementService.allocateParty, ledger-api-core: platform/apiserver/
 * services/admin/; UniqueIdentifier, base: topology/Identifier.scala).
 * A party id is a Daml-LF `PartyIdString`: 1–255 characters of
 * `[A-Za-z0-9:-_ ]`. Local parties are `<hint>::<participant namespace fingerprint>`, so a hint has at most 185 characters
 * (255 − 2 − 68) and must not itself contain `::`.
 */
export const MAX_PARTY_ID_LENGTH = 255;
export const MAX_PARTY_HINT_LENGTH = 185;
const PARTY_CHARS = /^[A-Za-z0-9:\-_ ]*$/;

/** Why `s` is not a Daml-LF party id, or null. The wording follows Daml-LF's `Ref.Party.fromString`. */
export function partyIdProblem(s: string): string | null {
  if (s.length === 0) return 'Daml-LF Party is empty';
  if (s.length > MAX_PARTY_ID_LENGTH) return `Party is too long (max: ${MAX_PARTY_ID_LENGTH})`;
  if (!PARTY_CHARS.test(s)) {
    const bad = [...s].find((c) => !PARTY_CHARS.test(c))!;
    return `non expected character 0x${bad.codePointAt(0)!.toString(16)} in Daml-LF Party "${s}"`;
  }
  return null;
}

/** A party id from a request (PATCH body, GET path/query): INVALID_ARGUMENT when it does not parse. */
export function requireParty(s: string): string {
  const problem = partyIdProblem(s);
  if (problem) throw invalidArgument(problem);
  return s;
}

/** The hint of an allocation request: empty means "generate one"; otherwise a party string usable as an identifier. */
export function validatePartyHint(hint: string): void {
  if (hint === '') return;
  const problem = partyIdProblem(hint);
  if (problem) throw invalidArgument(problem);
  if (hint.length > MAX_PARTY_HINT_LENGTH)
    throw invalidArgument(`Party is too long (max: ${MAX_PARTY_HINT_LENGTH} characters for the party hint)`);
  if (hint.includes('::')) throw invalidArgument(`non expected character sequence '::' in party hint "${hint}"`);
}

/** The generated hint for an empty one (`party-<uuid>`); the caller supplies the uuid (domain stays pure). */
export const generatedPartyHint = (uuid: string) => `party-${uuid}`;

/** `<hint>::<namespace>` */
export const localPartyId = (hint: string, namespaceFingerprint: string) => `${hint}::${namespaceFingerprint}`;

/** Identity provider ids: '' is the default provider; others are LedgerStrings `[A-Za-z0-9#:-_/ ]{1,255}`. */
const IDP_ID = /^[A-Za-z0-9#:\-_/ ]{1,255}$/;

export function identityProviderIdProblem(id: string): string | null {
  if (id === '') return null;
  if (id.length > 255) return `String too long: ${id.length} characters, at most 255 allowed`;
  if (!IDP_ID.test(id)) return `non expected character in identity provider id "${id}"`;
  return null;
}

/** INVALID_FIELD identity_provider_id (or `field`) when the id is malformed; '' passes (default provider). */
export function validateIdentityProviderIdField(id: string, field = 'identity_provider_id'): void {
  const problem = identityProviderIdProblem(id);
  if (problem) throw invalidField(field, problem);
}
