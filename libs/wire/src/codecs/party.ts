import type { PartyDetailsView, UpdatePartyDetailsBody } from '@ledgerline/domain';
import { fieldMaskSchema, objectMetaSchema, type JsObjectMeta } from './object-meta';

/** PartyDetails on the wire. */
export interface JsPartyDetails {
  party: string;
  isLocal: boolean;
  localMetadata: JsObjectMeta;
  identityProviderId: string;
}

export function partyDetailsToJs(v: PartyDetailsView): JsPartyDetails {
  return {
    party: v.party,
    isLocal: v.isLocal,
    localMetadata: { resourceVersion: v.resourceVersion, annotations: v.annotations },
    identityProviderId: v.identityProviderId,
  };
}

export const partyDetailsSchema = {
  type: ['object', 'null'],
  properties: {
    party: { type: 'string' },
    isLocal: { type: 'boolean' },
    localMetadata: { ...objectMetaSchema, type: ['object', 'null'] },
    identityProviderId: { type: 'string' },
  },
} as const;

/** Body of PATCH /v2/parties/{party} (every field optional, as the reference's relaxed decoder fills proto defaults). */
export const updatePartyDetailsRequestSchema = {
  type: 'object',
  properties: { partyDetails: partyDetailsSchema, updateMask: { ...fieldMaskSchema, type: ['object', 'null'] } },
} as const;

/** Body of POST /v2/parties. */
export const allocatePartyRequestSchema = {
  type: 'object',
  properties: {
    partyIdHint: { type: 'string' },
    localMetadata: { ...objectMetaSchema, type: ['object', 'null'] },
    identityProviderId: { type: 'string' },
    synchronizerId: { type: 'string' },
    userId: { type: 'string' },
  },
} as const;

export interface RawPatchBody {
  partyDetails?: {
    party?: string;
    isLocal?: boolean;
    localMetadata?: { resourceVersion?: string; annotations?: Record<string, string> } | null;
    identityProviderId?: string;
  } | null;
  updateMask?: { paths?: string[] } | null;
}

/** Schema-validated body → the decoded request with proto defaults filled in. */
export function updatePartyDetailsFromJs(body: RawPatchBody | undefined): UpdatePartyDetailsBody {
  const d = body?.partyDetails;
  const m = body?.updateMask;
  return {
    partyDetails: d
      ? {
          party: d.party ?? '',
          isLocal: d.isLocal ?? false,
          localMetadata: d.localMetadata
            ? { resourceVersion: d.localMetadata.resourceVersion ?? '', annotations: d.localMetadata.annotations ?? {} }
            : null,
          identityProviderId: d.identityProviderId ?? '',
        }
      : null,
    updateMask: m ? { paths: m.paths ?? [] } : null,
  };
}
