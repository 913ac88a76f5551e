/** User rights as stored, and the claims they give (Canton's UserBasedClaimResolver, base: auth/). Pure. */
export type Right =
  | { kind: 'ParticipantAdmin' }
  | { kind: 'IdentityProviderAdmin' }
  | { kind: 'CanActAs'; party: string }
  | { kind: 'CanReadAs'; party: string }
  | { kind: 'CanExecuteAs'; party: string }
  | { kind: 'CanReadAsAnyParty' }
  | { kind: 'CanExecuteAsAnyParty' }
  | { kind: 'CanActAsAnyParty' };

export const PARTY_RIGHT_KINDS = ['CanActAs', 'CanReadAs', 'CanExecuteAs'] as const;
export const RIGHT_KINDS = [
  'ParticipantAdmin',
  'IdentityProviderAdmin',
  'CanActAs',
  'CanReadAs',
  'CanExecuteAs',
  'CanReadAsAnyParty',
  'CanExecuteAsAnyParty',
  'CanActAsAnyParty',
] as const;

export const rightKey = (r: Right): string => ('party' in r ? `${r.kind}:${r.party}` : r.kind);

/** The caller, as resolved from a verified token and the user store. */
export interface Claims {
  readonly userId: string;
  /** Identity provider the user belongs to ('' = default). */
  readonly identityProviderId: string;
  readonly rights: readonly Right[];
  /** When the token these claims came from expires (ms since the epoch); absent: it does not. Open streams end then. */
  readonly expiresAtMs?: number;
}

const has = (c: Claims, kind: Right['kind']) => c.rights.some((r) => r.kind === kind);
const hasFor = (c: Claims, kind: Right['kind'], party: string) =>
  c.rights.some((r) => r.kind === kind && 'party' in r && r.party === party);

export const isParticipantAdmin = (c: Claims) => has(c, 'ParticipantAdmin');
export const isIdpAdmin = (c: Claims) => has(c, 'IdentityProviderAdmin') || isParticipantAdmin(c);
export const canActAs = (c: Claims, p: string) => has(c, 'CanActAsAnyParty') || hasFor(c, 'CanActAs', p);
export const readsAsAnyParty = (c: Claims) => has(c, 'CanReadAsAnyParty') || has(c, 'CanActAsAnyParty');
export const canReadAs = (c: Claims, p: string) =>
  readsAsAnyParty(c) || hasFor(c, 'CanReadAs', p) || hasFor(c, 'CanActAs', p);
export const canExecuteAs = (c: Claims, p: string) =>
  has(c, 'CanExecuteAsAnyParty') ||
  has(c, 'CanActAsAnyParty') ||
  hasFor(c, 'CanExecuteAs', p) ||
  hasFor(c, 'CanActAs', p);
/** Any of act/read/execute for the party (GET /v2/parties/{party}). */
export const operatesAsParty = (c: Claims, p: string) => canActAs(c, p) || canReadAs(c, p) || canExecuteAs(c, p);
