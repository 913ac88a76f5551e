import type { Claims, VettingUpdateRequest } from '@ledgerline/domain';

/** Where an upload's bytes come from: read once, after the request passed authorization and synchronizer checks. */
export type DarSource = () => Promise<Buffer>;

export class UploadDarCommand {
  constructor(
    readonly claims: Claims,
    readonly dar: DarSource,
    readonly vetAllPackages: boolean,
    readonly synchronizerId: string,
  ) {}
}

export class ValidateDarCommand {
  constructor(
    readonly claims: Claims,
    readonly dar: DarSource,
    readonly synchronizerId: string,
  ) {}
}

export class UpdateVettedPackagesCommand {
  constructor(
    readonly claims: Claims,
    /** Decodes the request (its proto-level errors come after authorization, as in the reference). */
    readonly request: () => VettingUpdateRequest & { synchronizerId: string },
  ) {}
}
