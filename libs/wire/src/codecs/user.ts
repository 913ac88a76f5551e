import type { UpdateUserBody, UserRecord } from '@ledgerline/domain';
import { fieldMaskSchema, objectMetaSchema } from './object-meta';

export interface JsUser {
  id: string;
  primaryParty: string;
  isDeactivated: boolean;
  metadata: { resourceVersion: string; annotations: Record<string, string> };
  identityProviderId: string;
  primaryPartyAuthentication: boolean;
}

export const userSchema = {
  type: 'object',
  required: ['id'],
  properties: {
    id: { type: 'string' },
    primaryParty: { type: 'string' },
    isDeactivated: { type: 'boolean' },
    metadata: objectMetaSchema,
    identityProviderId: { type: 'string' },
    primaryPartyAuthentication: { type: 'boolean' },
  },
} as const;

export function userToJs(u: UserRecord & { resourceVersion: number }): JsUser {
  return {
    id: u.id,
    primaryParty: u.primaryParty,
    isDeactivated: u.isDeactivated,
    metadata: { resourceVersion: String(u.resourceVersion), annotations: u.annotations },
    identityProviderId: u.identityProviderId,
    primaryPartyAuthentication: u.primaryPartyAuthentication ?? false,
  };
}

/** Body of PATCH /v2/users/{user-id} (every field optional: the reference's relaxed decoder fills proto defaults). */
export const updateUserRequestSchema = {
  type: 'object',
  properties: {
    user: {
      ...userSchema,
      type: ['object', 'null'],
      required: [],
      properties: { ...userSchema.properties, metadata: { ...objectMetaSchema, type: ['object', 'null'] } },
    },
    updateMask: { ...fieldMaskSchema, type: ['object', 'null'] },
  },
} as const;

export interface RawUpdateUserBody {
  user?: {
    id?: string;
    primaryParty?: string;
    isDeactivated?: boolean;
    metadata?: { resourceVersion?: string; annotations?: Record<string, string> } | null;
    identityProviderId?: string;
    primaryPartyAuthentication?: boolean;
  } | null;
  updateMask?: { paths?: string[] } | null;
}

/** Schema-validated body → the decoded request with proto defaults filled in. */
export function updateUserFromJs(body: RawUpdateUserBody | undefined): UpdateUserBody {
  const u = body?.user;
  const m = body?.updateMask;
  return {
    user: u
      ? {
          id: u.id ?? '',
          primaryParty: u.primaryParty ?? '',
          isDeactivated: u.isDeactivated ?? false,
          metadata: u.metadata
            ? { resourceVersion: u.metadata.resourceVersion ?? '', annotations: u.metadata.annotations ?? {} }
            : null,
          identityProviderId: u.identityProviderId ?? '',
          primaryPartyAuthentication: u.primaryPartyAuthentication ?? false,
        }
      : null,
    updateMask: m ? { paths: m.paths ?? [] } : null,
  };
}
