import { alreadyExists, failedPrecondition, invalidField, LedgerError, missingField, notFound } from '../errors';
import { ErrorCategories } from '../errors/error-category';
import type { NewEvent } from '../ledger/events';
import { identityProviderIdProblem } from '../parties/party-rules';
import { parseUpdateMask } from '../object-meta';
import { identityProviderNotFoundArgument } from '../parties/party-errors';
import { USER_IDENTITY_PROVIDER_CHANGED, type UserIdentityProviderChangedData } from '../users/events';

/** An identity provider configuration (IdentityProviderConfig on the wire). */
export interface IdentityProviderConfig {
  identityProviderId: string;
  isDeactivated: boolean;
  issuer: string;
  jwksUrl: string;
  audience: string;
}

/** How many providers a participant keeps (Canton's default limit). */
export const MAX_IDENTITY_PROVIDERS = 10;

export const IDENTITY_PROVIDER_CREATED = 'IdentityProviderCreated';
export const IDENTITY_PROVIDER_UPDATED = 'IdentityProviderUpdated';
export const IDENTITY_PROVIDER_DELETED = 'IdentityProviderDeleted';

/** data of an 'IdentityProviderCreated' or 'IdentityProviderUpdated' event: the whole configuration after it. */
export interface IdentityProviderConfigData {
  config: IdentityProviderConfig;
}

/** data of an 'IdentityProviderDeleted' event. */
export interface IdentityProviderDeletedData {
  identityProviderId: string;
}

export type IdentityProviderEvent =
  | NewEvent<typeof IDENTITY_PROVIDER_CREATED, IdentityProviderConfigData>
  | NewEvent<typeof IDENTITY_PROVIDER_UPDATED, IdentityProviderConfigData>
  | NewEvent<typeof IDENTITY_PROVIDER_DELETED, IdentityProviderDeletedData>;

export const identityProviderStream = (id: string) => `idp:${id}`;

const idpResource = (id: string): Array<[string, string]> => [['IDENTITY_PROVIDER_CONFIG', id]];

export const idpConfigNotFound = (operation: string, id: string) =>
  notFound('IDP_CONFIG_NOT_FOUND', `${operation} failed for unknown identity provider id="${id}"`, idpResource(id));
export const idpConfigAlreadyExists = (id: string) =>
  alreadyExists(
    'IDP_CONFIG_ALREADY_EXISTS',
    `Creating identity provider config failed, as identity provider "${id}" already exists`,
    idpResource(id),
  );
export const idpIssuerAlreadyExists = (operation: string, issuer: string) =>
  alreadyExists(
    'IDP_CONFIG_ISSUER_ALREADY_EXISTS',
    `${operation} failed, as identity provider with issuer "${issuer}" already exists`,
    idpResource(issuer),
  );
export const tooManyIdentityProviders = () =>
  failedPrecondition('TOO_MANY_IDENTITY_PROVIDER_CONFIGS', 'Creating identity provider config failed.');
export const invalidIdpUpdateRequest = (id: string, reason: string) =>
  new LedgerError(
    'INVALID_IDENTITY_PROVIDER_UPDATE_REQUEST',
    ErrorCategories.InvalidIndependentOfSystemState,
    `Update operation for identity provider config '${id}' failed due to: ${reason}`,
    {
      resources: idpResource(id),
    },
  );

/** A non-default provider id (path or body): MISSING_FIELD when empty, INVALID_FIELD when malformed. */
export function requireIdentityProviderId(id: string, field = 'identity_provider_id'): string {
  if (id === '') throw missingField(field);
  const problem = identityProviderIdProblem(id);
  if (problem) throw invalidField(field, problem);
  return id;
}

export function validateJwksUrl(url: string, field = 'jwks_url'): void {
  if (url === '') throw missingField(field);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalidField(field, `Malformed URL: ${url}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw invalidField(field, `Malformed URL: ${url} (http or https expected)`);
}

export function validateCreateIdentityProvider(config: IdentityProviderConfig): void {
  requireIdentityProviderId(config.identityProviderId, 'identity_provider_id');
  if (config.issuer === '') throw missingField('issuer');
  validateJwksUrl(config.jwksUrl);
}

export interface IdentityProvidersState {
  byId: IdentityProviderConfig | null;
  /** The provider that already uses the request's issuer (if any). */
  byIssuer: IdentityProviderConfig | null;
  count: number;
}

export function decideCreateIdentityProvider(
  state: IdentityProvidersState,
  config: IdentityProviderConfig,
): IdentityProviderEvent[] {
  validateCreateIdentityProvider(config);
  if (state.byId) throw idpConfigAlreadyExists(config.identityProviderId);
  if (state.byIssuer) throw idpIssuerAlreadyExists('Creating identity provider config', config.issuer);
  if (state.count >= MAX_IDENTITY_PROVIDERS) throw tooManyIdentityProviders();
  return [
    { type: IDENTITY_PROVIDER_CREATED, stream: identityProviderStream(config.identityProviderId), data: { config } },
  ];
}

export const IDP_UPDATE_LEAVES = ['identity_provider_id', 'is_deactivated', 'issuer', 'jwks_url', 'audience'] as const;

/**
 * Update by mask: `is_deactivated` and `audience` take the request's value (audience '' clears it); `issuer` and `jwks_url`
 * change only when the request gives a non-empty value; `identity_provider_id` is accepted and changes nothing.
 */
export function decideUpdateIdentityProvider(
  state: IdentityProvidersState,
  request: IdentityProviderConfig,
  maskPaths: string[],
): { events: IdentityProviderEvent[]; config: IdentityProviderConfig } {
  const id = requireIdentityProviderId(request.identityProviderId, 'identity_provider_config.identity_provider_id');
  const parsed = parseUpdateMask(maskPaths, IDP_UPDATE_LEAVES);
  if (!parsed.ok) throw invalidIdpUpdateRequest(id, parsed.problem.message);
  const mask = parsed.mask;
  if (mask.covers('jwks_url') && request.jwksUrl !== '') validateJwksUrl(request.jwksUrl);
  const current = state.byId;
  if (!current) throw idpConfigNotFound('Updating identity provider config', id);
  const next: IdentityProviderConfig = { ...current };
  if (mask.covers('is_deactivated')) next.isDeactivated = request.isDeactivated;
  if (mask.covers('issuer') && request.issuer !== '') next.issuer = request.issuer;
  if (mask.covers('jwks_url') && request.jwksUrl !== '') next.jwksUrl = request.jwksUrl;
  if (mask.covers('audience')) next.audience = request.audience;
  if (next.issuer !== current.issuer && state.byIssuer && state.byIssuer.identityProviderId !== id) {
    throw idpIssuerAlreadyExists('Updating identity provider config', next.issuer);
  }
  return {
    events: [{ type: IDENTITY_PROVIDER_UPDATED, stream: identityProviderStream(id), data: { config: next } }],
    config: next,
  };
}

export function decideDeleteIdentityProvider(state: IdentityProvidersState, id: string): IdentityProviderEvent[] {
  requireIdentityProviderId(id);
  if (!state.byId) throw idpConfigNotFound('Deleting identity provider config', id);
  return [{ type: IDENTITY_PROVIDER_DELETED, stream: identityProviderStream(id), data: { identityProviderId: id } }];
}

/** Moving a user between providers (PATCH /v2/users/{id}/identity-provider-id). */
export interface MoveUserState {
  user: { id: string; identityProviderId: string } | null;
  sourceExists: boolean;
  targetExists: boolean;
}

export function decideMoveUserIdentityProvider(
  state: MoveUserState,
  req: { userId: string; source: string; target: string },
): NewEvent<typeof USER_IDENTITY_PROVIDER_CHANGED, UserIdentityProviderChangedData>[] {
  if (!state.sourceExists) throw identityProviderNotFoundArgument(req.source);
  if (!state.targetExists) throw identityProviderNotFoundArgument(req.target);
  if (!state.user || state.user.identityProviderId !== req.source) {
    throw notFound('USER_NOT_FOUND', `updating user's identity provider id failed for unknown user "${req.userId}"`, [
      ['USER', req.userId],
    ]);
  }
  return [
    {
      type: USER_IDENTITY_PROVIDER_CHANGED,
      stream: `user:${req.userId}`,
      data: { userId: req.userId, identityProviderId: req.target },
    },
  ];
}
