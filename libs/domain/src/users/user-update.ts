import {
  invalidArgument,
  jsonInvalidArgument,
  LedgerError,
  missingField,
  permissionDenied,
  contention,
  failedPrecondition,
} from '../errors';
import { ErrorCategories } from '../errors/error-category';
import type { Claims } from '../auth/rights';
import { matchIdentityProviderId, requireAdminOrIdpAdmin } from '../auth/requirements';
import {
  decideObjectMetaUpdate,
  maskedValue,
  parseResourceVersion,
  parseUpdateMask,
  validateRequestAnnotations,
} from '../object-meta';
import { identityProviderNotFoundArgument } from '../parties/party-errors';
import { requireParty, validateIdentityProviderIdField } from '../parties/party-rules';
import { userStream, type UserEvent, type UserRecord } from './events';
import { validateUserId } from './user-rules';

/**
 * PATCH /v2/users/{user-id} (Canton's ApiUserManagementService.updateUser, UserUpdateMapper and
 * PersistentUserManagementStore.updateUser, ledger-api-core): the same field-mask rules as PATCH of a party.
 */

/** Mask leaves of User (proto snake_case names). */
export const USER_UPDATE_LEAVES = [
  'id',
  'primary_party',
  'is_deactivated',
  'metadata.annotations',
  'metadata.resource_version',
  'identity_provider_id',
  'primary_party_authentication',
] as const;

/** The body as decoded (absent fields at their proto defaults, absent messages null). */
export interface UpdateUserBody {
  user: {
    id: string;
    primaryParty: string;
    isDeactivated: boolean;
    metadata: { resourceVersion: string; annotations: Record<string, string> } | null;
    identityProviderId: string;
    primaryPartyAuthentication: boolean;
  } | null;
  updateMask: { paths: string[] } | null;
}

const userResource = (id: string): Array<[string, string]> => [['USER', id]];

export const invalidUserUpdateRequest = (id: string, reason: string) =>
  new LedgerError(
    'INVALID_USER_UPDATE_REQUEST',
    ErrorCategories.InvalidIndependentOfSystemState,
    `Update operation for user id '${id}' failed due to: ${reason}`,
    {
      resources: userResource(id),
    },
  );

export const concurrentUserUpdate = (id: string) =>
  contention(
    'CONCURRENT_USER_UPDATE_DETECTED',
    `Update operation for user '${id}' failed due to a concurrent update to the same user`,
    {
      resources: userResource(id),
    },
  );

export const maxUserAnnotationsSizeExceeded = (id: string) =>
  failedPrecondition(
    'MAX_USER_ANNOTATIONS_SIZE_EXCEEDED',
    `Maximum annotations size for user '${id}' has been exceeded`,
    { resources: userResource(id) },
  );

const userNotFoundForUpdate = (id: string) =>
  new LedgerError(
    'USER_NOT_FOUND',
    ErrorCategories.InvalidGivenCurrentSystemStateResourceMissing,
    `updating user failed for unknown user "${id}"`,
    {
      resources: userResource(id),
    },
  );

/** JSON-layer check: the path id must equal `user.id` (also fails when `user` is absent). */
export function checkUserPathMatchesBody(pathId: string, body: UpdateUserBody): void {
  if (body.user && body.user.id === pathId) return;
  throw jsonInvalidArgument(`${pathId} does not match user in body: ${body.user ? `Some(${body.user.id})` : 'None'} `);
}

/** ParticipantAdmin, or IdentityProviderAdmin of the user's provider (MatchIdentityProviderId): the effective provider. */
export function authorizeUpdateUser(claims: Claims, body: UpdateUserBody): string {
  requireAdminOrIdpAdmin(claims);
  return matchIdentityProviderId(claims, body.user ? body.user.identityProviderId : null);
}

export interface ValidatedUserUpdate {
  id: string;
  primaryParty: string;
  isDeactivated: boolean;
  primaryPartyAuthentication: boolean;
  annotations: Record<string, string>;
  expectedVersion: bigint | null;
  maskPaths: string[];
  identityProviderId: string;
  /** The authenticated user (self-deactivation is refused). */
  callerUserId: string;
}

/** Field validation, in the reference's order. `identityProviderId` is the effective one. */
export function validateUpdateUser(
  claims: Claims,
  body: UpdateUserBody,
  identityProviderId: string,
): ValidatedUserUpdate {
  const u = body.user;
  if (!u) throw missingField('user');
  validateUserId(u.id, 'user.id');
  const meta = u.metadata ?? { resourceVersion: '', annotations: {} };
  if (!body.updateMask) throw missingField('update_mask');
  if (u.primaryParty !== '') requireParty(u.primaryParty);
  validateIdentityProviderIdField(identityProviderId, 'identity_provider_id');
  const expectedVersion = parseResourceVersion(meta.resourceVersion, 'user.metadata.resource_version');
  validateRequestAnnotations(meta.annotations, { field: 'user.metadata.annotations', allowEmptyValues: true });
  return {
    id: u.id,
    primaryParty: u.primaryParty,
    isDeactivated: u.isDeactivated,
    primaryPartyAuthentication: u.primaryPartyAuthentication,
    annotations: meta.annotations,
    expectedVersion,
    maskPaths: body.updateMask.paths,
    identityProviderId,
    callerUserId: claims.userId,
  };
}

/** What an update decision reads: the stored user (with its version) and whether the named provider exists. */
export interface UserUpdateState {
  user: (UserRecord & { resourceVersion: number }) | null;
  identityProviderExists: boolean;
}

export interface UserUpdateDecision {
  events: UserEvent[];
  user: UserRecord & { resourceVersion: number };
}

/**
 * The mask (checked before the user is looked up), the provider, self-deactivation, then the store's rules: user exists
 * in that provider, resource version (if given) matches, annotations merge and size. Every success bumps the version.
 */
export function decideUpdateUser(state: UserUpdateState, req: ValidatedUserUpdate): UserUpdateDecision {
  const parsed = parseUpdateMask(req.maskPaths, USER_UPDATE_LEAVES);
  if (!parsed.ok) throw invalidUserUpdateRequest(req.id, parsed.problem.message);
  const mask = parsed.mask;
  if (!state.identityProviderExists) throw identityProviderNotFoundArgument(req.identityProviderId);
  if (req.callerUserId === req.id && req.isDeactivated && mask.covers('is_deactivated'))
    throw invalidArgument('Requesting user cannot self-deactivate');
  const {
    record: current,
    annotations,
    resourceVersion,
  } = decideObjectMetaUpdate(
    state.user,
    {
      identityProviderId: req.identityProviderId,
      expectedVersion: req.expectedVersion,
      annotations: mask.covers('metadata.annotations') ? req.annotations : null,
    },
    {
      notFound: () => userNotFoundForUpdate(req.id),
      otherProvider: (current) =>
        permissionDenied(
          `User ${req.id} belongs to identity provider '${current}', the request names '${req.identityProviderId}'`,
        ),
      concurrentUpdate: () => concurrentUserUpdate(req.id),
      annotationsTooLarge: () => maxUserAnnotationsSizeExceeded(req.id),
    },
  );
  const user: UserRecord = {
    id: current.id,
    identityProviderId: current.identityProviderId,
    annotations,
    isDeactivated: maskedValue(mask, 'is_deactivated', req.isDeactivated, current.isDeactivated, (v) => !v),
    primaryParty: maskedValue(mask, 'primary_party', req.primaryParty, current.primaryParty, (v) => v === ''),
    primaryPartyAuthentication: maskedValue(
      mask,
      'primary_party_authentication',
      req.primaryPartyAuthentication,
      current.primaryPartyAuthentication ?? false,
      (v) => !v,
    ),
  };
  return {
    events: [{ type: 'UserUpdated', stream: userStream(req.id), data: { user, resourceVersion } }],
    user: { ...user, resourceVersion },
  };
}
