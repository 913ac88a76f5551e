import type { UserRecord } from '@ledgerline/domain';
import { objectMetaSchema } from './object-meta';

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
    primaryPartyAuthentication: false,
  };
}
