import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import {
  checkDarDependencies,
  darPackageIdsToLookUp,
  inspectDar,
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
