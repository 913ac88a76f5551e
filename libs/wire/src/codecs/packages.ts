import {
  protoDeserializationFailure,
  validateVettingBound,
  validateVettingRef,
  type PackageInfo,
  type PreferredPackagesRequest,
  type VettedPackagesEntry,
  type VettingChange,
  type VettingListFilter,
  type VettingRef,
  type VettingUpdateRequest,
} from '@ledgerline/domain';

/** Package service, package management and vetting on the wire (Canton's JsPackageService and its proto messages). */

const stringList = { type: 'array', items: { type: 'string' } } as const;

export const listVettedPackagesRequestSchema = {
  type: 'object',
  properties: {
    packageMetadataFilter: {
      type: ['object', 'null'],
      properties: { packageIds: stringList, packageNamePrefixes: stringList },
    },
    topologyStateFilter: {
      type: ['object', 'null'],
      properties: { participantIds: stringList, synchronizerIds: stringList },
    },
    pageToken: { type: 'string' },
    pageSize: { type: 'integer', minimum: -2147483648, maximum: 2147483647 },
  },
} as const;

const vettingRefSchema = {
  type: 'object',
  properties: { packageId: { type: 'string' }, packageName: { type: 'string' }, packageVersion: { type: 'string' } },
} as const;

export const updateVettedPackagesRequestSchema = {
  type: 'object',
  required: ['changes'],
  properties: {
    changes: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          operation: {
            type: ['object', 'null'],
            properties: {
              Empty: { type: 'object' },
              Vet: {
                type: 'object',
                required: ['value'],
                properties: {
                  value: {
                    type: 'object',
                    required: ['packages'],
                    properties: {
                      packages: { type: 'array', items: vettingRefSchema },
                      newValidFromInclusive: { type: 'string' },
                      newValidUntilExclusive: { type: 'string' },
                    },
                  },
                },
              },
              Unvet: {
                type: 'object',
                required: ['value'],
                properties: {
                  value: {
                    type: 'object',
                    required: ['packages'],
                    properties: { packages: { type: 'array', items: vettingRefSchema } },
                  },
                },
              },
            },
          },
        },
      },
    },
    dryRun: { type: 'boolean' },
    synchronizerId: { type: 'string' },
    expectedTopologySerial: {
      type: ['object', 'null'],
      properties: {
        serial: {
          type: ['object', 'null'],
          properties: {
            Empty: { type: 'object' },
            NoPrior: { type: 'object' },
            Prior: {
              type: 'object',
              required: ['value'],
              properties: { value: { type: 'integer', minimum: -2147483648, maximum: 2147483647 } },
            },
          },
        },
      },
    },
    updateVettedPackagesForceFlags: {
      type: 'array',
      items: {
        type: 'string',
        enum: [
          'UPDATE_VETTED_PACKAGES_FORCE_FLAG_UNSPECIFIED',
          'UPDATE_VETTED_PACKAGES_FORCE_FLAG_ALLOW_VET_INCOMPATIBLE_UPGRADES',
          'UPDATE_VETTED_PACKAGES_FORCE_FLAG_ALLOW_UNVETTED_DEPENDENCIES',
        ],
      },
    },
  },
} as const;

export const preferredPackagesRequestSchema = {
  type: 'object',
  required: ['packageVettingRequirements'],
  properties: {
    packageVettingRequirements: {
      type: 'array',
      items: {
        type: 'object',
        required: ['packageName', 'parties'],
        properties: { parties: stringList, packageName: { type: 'string' } },
      },
    },
    synchronizerId: { type: 'string' },
    vettingValidAt: { type: 'string' },
  },
} as const;

export interface RawRef {
  packageId?: string;
  packageName?: string;
  packageVersion?: string;
}

export interface RawUpdateVetted {
  changes: Array<{
    operation?: {
      Vet?: { value: { packages: RawRef[]; newValidFromInclusive?: string; newValidUntilExclusive?: string } };
      Unvet?: { value: { packages: RawRef[] } };
    } | null;
  }>;
  dryRun?: boolean;
  synchronizerId?: string;
  expectedTopologySerial?: { serial?: { NoPrior?: object; Prior?: { value: number } } | null } | null;
}

const refOf = (r: RawRef): VettingRef => {
  const ref = {
    packageId: r.packageId ?? '',
    packageName: r.packageName ?? '',
    packageVersion: r.packageVersion ?? '',
  };
  validateVettingRef(ref);
  return ref;
};

/** A schema-validated UpdateVettedPackagesRequest → the domain request; what the proto conversion refuses → PROTO_DESERIALIZATION_FAILURE. */
export function updateVettedPackagesFromJs(body: RawUpdateVetted): VettingUpdateRequest & { synchronizerId: string } {
  if (body.changes.length === 0) throw protoDeserializationFailure('FieldNotSet(changes)');
  const changes: VettingChange[] = body.changes.map((c) => {
    const op = c.operation;
    if (op?.Vet) {
      const v = op.Vet.value;
      if (v.packages.length === 0) throw protoDeserializationFailure('FieldNotSet(packages)');
      const from = v.newValidFromInclusive ?? null;
      const until = v.newValidUntilExclusive ?? null;
      validateVettingBound('new_valid_from_inclusive', from);
      validateVettingBound('new_valid_until_exclusive', until);
      return { kind: 'vet', refs: v.packages.map(refOf), validFromInclusive: from, validUntilExclusive: until };
    }
    if (op?.Unvet) {
      if (op.Unvet.value.packages.length === 0) throw protoDeserializationFailure('FieldNotSet(packages)');
      return { kind: 'unvet', refs: op.Unvet.value.packages.map(refOf) };
    }
    throw protoDeserializationFailure('FieldNotSet(operation)');
  });
  const serial = body.expectedTopologySerial?.serial;
  const expectedSerial = serial?.Prior ? serial.Prior.value : serial?.NoPrior ? 0 : null;
  return { changes, dryRun: body.dryRun ?? false, synchronizerId: body.synchronizerId ?? '', expectedSerial };
}

export interface RawListVetted {
  packageMetadataFilter?: { packageIds?: string[]; packageNamePrefixes?: string[] } | null;
  topologyStateFilter?: { participantIds?: string[]; synchronizerIds?: string[] } | null;
  pageToken?: string;
  pageSize?: number;
}

export function listVettedPackagesFromJs(body: RawListVetted | undefined): {
  filter: VettingListFilter;
  pageToken: string;
  pageSize: number;
} {
  return {
    filter: {
      packageIds: body?.packageMetadataFilter?.packageIds ?? [],
      packageNamePrefixes: body?.packageMetadataFilter?.packageNamePrefixes ?? [],
      participantIds: body?.topologyStateFilter?.participantIds ?? [],
      synchronizerIds: body?.topologyStateFilter?.synchronizerIds ?? [],
    },
    pageToken: body?.pageToken ?? '',
    pageSize: body?.pageSize ?? 0,
  };
}

/** The opaque page token: base64url of the last entry's synchronizer and participant. */
export function vettingPageToken(entry: { synchronizerId: string; participantId: string }): string {
  return Buffer.from(JSON.stringify([entry.synchronizerId, entry.participantId])).toString('base64url');
}

export function parseVettingPageToken(token: string): { synchronizerId: string; participantId: string } | null {
  if (token === '') return null;
  try {
    const v: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string')
      return { synchronizerId: v[0], participantId: v[1] };
  } catch {
    // fall through
  }
  throw protoDeserializationFailure(`Invalid page token for ListVettedPackagesRequest: ${token}`);
}

/** VettedPackages of one synchronizer as the update endpoint answers (every package, with name and version where stored). */
export function vettedPackagesToJs(entry: VettedPackagesEntry) {
  return {
    packages: entry.packages.map((p) => ({
      packageId: p.packageId,
      ...(p.validFromInclusive !== null ? { validFromInclusive: p.validFromInclusive } : {}),
      ...(p.validUntilExclusive !== null ? { validUntilExclusive: p.validUntilExclusive } : {}),
      packageName: p.packageName,
      packageVersion: p.packageVersion,
    })),
    participantId: entry.participantId,
    synchronizerId: entry.synchronizerId,
    topologySerial: entry.serial,
  };
}

export const packageReferenceToJs = (p: PackageInfo) => ({
  packageId: p.packageId,
  packageName: p.name,
  packageVersion: p.version,
});

export interface RawPreferred {
  packageVettingRequirements: Array<{ parties: string[]; packageName: string }>;
  synchronizerId?: string;
  vettingValidAt?: string;
}

export function preferredPackagesFromJs(body: RawPreferred): PreferredPackagesRequest {
  return {
    requirements: body.packageVettingRequirements.map((r) => ({ parties: r.parties, packageName: r.packageName })),
    synchronizerId: body.synchronizerId ?? '',
    vettingValidAt: body.vettingValidAt ?? '',
  };
}
