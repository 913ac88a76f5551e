import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import {
  checkDarDependencies,
  darExternalReferences,
  darPackageIdsToLookUp,
  inspectDar,
  validateDar,
  type ParsedDar,
  requireParticipantAdmin,
  resolvePackageSynchronizer,
  validatePackageSynchronizerId,
  type VettedPackagesEntry,
} from '@ledgerline/domain';
import { darUploadDecider, EventStore, PackagesRepository, vettingUpdateDecider } from '@ledgerline/store';
import { LedgerRuntime } from '../../../infrastructure/runtime';
import { ParticipantIdentity } from '../../../infrastructure/participant-identity';
import { CommandInterpreter } from '../../../infrastructure/command-interpreter';
import { UpdateVettedPackagesCommand, UploadDarCommand, ValidateDarCommand } from './package.commands';

/**
 * Canton's package validation of a DAR that passed inspection, against the stored packages it uses. A DAR that refers
 * to packages that are not stored is left to the dependency check (DAR_DEPENDENCIES_NOT_VALID), which comes first.
 */
async function validateUploadedDar(
  parsed: ParsedDar,
  packages: PackagesRepository,
  runtime: LedgerRuntime,
  interpreter: CommandInterpreter,
): Promise<void> {
  const external = darExternalReferences(parsed);
  const stored = external.length ? await packages.stored(runtime.db, external) : new Set<string>();
  if (external.some((id) => !stored.has(id))) return;
  const deps = new Map(
    await Promise.all(external.map(async (id) => [id, await interpreter.storedPackage(id)] as const)),
  );
  validateDar(parsed, (id) => deps.get(id));
}

/**
 * DAR upload, validation and vetting changes (Canton's PackageService and PackageUploader, participant: admin/), in the
 * reference's order: authorization, synchronizer id syntax, synchronizer resolution, then the DAR.
 */
@CommandHandler(UploadDarCommand)
export class UploadDarHandler implements ICommandHandler<UploadDarCommand> {
  constructor(
    private readonly store: EventStore,
    private readonly runtime: LedgerRuntime,
    private readonly identity: ParticipantIdentity,
    private readonly interpreter: CommandInterpreter,
    private readonly packages: PackagesRepository,
  ) {}

  async execute({ claims, dar, vetAllPackages, synchronizerId }: UploadDarCommand): Promise<void> {
    requireParticipantAdmin(claims);
    validatePackageSynchronizerId(synchronizerId);
    const vetOn = vetAllPackages
      ? resolvePackageSynchronizer(
          synchronizerId,
          this.identity.synchronizers.map((s) => s.id),
        )
      : null;
    const parsed = await inspectDar(await dar(), { maxUncompressedBytes: this.runtime.config.darMaxUncompressedBytes });
    await validateUploadedDar(parsed, this.packages, this.runtime, this.interpreter);
    // The archives first, then the event that names them: one transaction.
    await this.store.decide(darUploadDecider, { dar: parsed, vetOn, participantId: this.identity.participantId });
    // The engine gets the packages as the upload decoded them: the first command using them finds them ready.
    this.interpreter.addDecoded(parsed.packages.flatMap((p) => (p.decoded ? [p.decoded] : [])));
  }
}

@CommandHandler(ValidateDarCommand)
export class ValidateDarHandler implements ICommandHandler<ValidateDarCommand> {
  constructor(
    private readonly runtime: LedgerRuntime,
    private readonly identity: ParticipantIdentity,
    private readonly packages: PackagesRepository,
    private readonly interpreter: CommandInterpreter,
  ) {}

  async execute({ claims, dar, synchronizerId }: ValidateDarCommand): Promise<void> {
    requireParticipantAdmin(claims);
    validatePackageSynchronizerId(synchronizerId);
    resolvePackageSynchronizer(
      synchronizerId,
      this.identity.synchronizers.map((s) => s.id),
    );
    const parsed = await inspectDar(await dar(), { maxUncompressedBytes: this.runtime.config.darMaxUncompressedBytes });
    checkDarDependencies(parsed, await this.packages.stored(this.runtime.db, darPackageIdsToLookUp(parsed)));
    await validateUploadedDar(parsed, this.packages, this.runtime, this.interpreter);
  }
}

@CommandHandler(UpdateVettedPackagesCommand)
export class UpdateVettedPackagesHandler implements ICommandHandler<UpdateVettedPackagesCommand> {
  constructor(
    private readonly store: EventStore,
    private readonly identity: ParticipantIdentity,
  ) {}

  async execute({
    claims,
    request: decode,
  }: UpdateVettedPackagesCommand): Promise<{ past: VettedPackagesEntry | null; next: VettedPackagesEntry }> {
    requireParticipantAdmin(claims);
    const request = decode();
    validatePackageSynchronizerId(request.synchronizerId);
    const synchronizerId = resolvePackageSynchronizer(
      request.synchronizerId,
      this.identity.synchronizers.map((s) => s.id),
    );
    return this.store.decide(vettingUpdateDecider, {
      synchronizerId,
      request,
      participantId: this.identity.participantId,
    });
  }
}
