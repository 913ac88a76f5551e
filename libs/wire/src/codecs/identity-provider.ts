import type { IdentityProviderConfig } from '@ledgerline/domain';
import { fieldMaskSchema } from './object-meta';

/** IdentityProviderConfig on the wire (same field names as the domain type). */
export type JsIdentityProviderConfig = IdentityProviderConfig;

export const identityProviderConfigToJs = (c: IdentityProviderConfig): JsIdentityProviderConfig => ({
  identityProviderId: c.identityProviderId,
  isDeactivated: c.isDeactivated,
  issuer: c.issuer,
  jwksUrl: c.jwksUrl,
  audience: c.audience,
});

export const identityProviderConfigSchema = {
  type: 'object',
  properties: {
    identityProviderId: { type: 'string' },
    isDeactivated: { type: 'boolean' },
    issuer: { type: 'string' },
    jwksUrl: { type: 'string' },
    audience: { type: 'string' },
  },
} as const;

export const createIdentityProviderConfigRequestSchema = {
  type: 'object',
  required: ['identityProviderConfig'],
  properties: { identityProviderConfig: identityProviderConfigSchema },
} as const;

export const updateIdentityProviderConfigRequestSchema = {
  type: 'object',
  required: ['identityProviderConfig'],
  properties: {
    identityProviderConfig: identityProviderConfigSchema,
    updateMask: { ...fieldMaskSchema, type: ['object', 'null'] },
  },
} as const;

export const updateUserIdentityProviderIdRequestSchema = {
  type: 'object',
  properties: {
    userId: { type: 'string' },
    sourceIdentityProviderId: { type: 'string' },
    targetIdentityProviderId: { type: 'string' },
  },
} as const;

/** Schema-validated config → domain config with proto defaults. */
export function identityProviderConfigFromJs(raw: Partial<IdentityProviderConfig> | undefined): IdentityProviderConfig {
  return {
    identityProviderId: raw?.identityProviderId ?? '',
    isDeactivated: raw?.isDeactivated ?? false,
    issuer: raw?.issuer ?? '',
    jwksUrl: raw?.jwksUrl ?? '',
    audience: raw?.audience ?? '',
  };
}
