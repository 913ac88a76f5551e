import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import {
  checkDarDependencies,
  darPackageIdsToLookUp,
  decideUploadDar,
  decideVettingUpdate,
  inspectDar,
  requireParticipantAdmin,
  resolvePackageSynchronizer,
  validatePackageSynchronizerId,
  vettingEntry,
  type VettedPackagesEntry,
} from '@ledgerline/domain';
import { EventStore, PackagesRepository } from '@ledgerline/store';
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
    private readonly packages: PackagesRepository,
    private readonly interpreter: CommandInterpreter,
  ) {}

  async execute({ claims, dar, vetAllPackages, synchronizerId }: UploadDarCommand): Promise<void> {
    requireParticipantAdmin(claims);
    validatePackageSynchronizerId(synchronizerId);
    const vetOn = vetAllPackages ? resolvePackageSynchronizer(synchronizerId, this.identity.synchronizers.map((s) => s.id)) : null;
    const parsed = await inspectDar(await dar(), { maxUncompressedBytes: this.runtime.config.darMaxUncompressedBytes });
    const lookUp = darPackageIdsToLookUp(parsed);
    await this.store.execute(async (tx) => {
      const stored = await this.packages.stored(tx.db, lookUp);
      const vetting = vetOn ? (await this.packages.vetting(tx.db, [vetOn]))[0] : null;
      const decision = decideUploadDar({ stored, vetting }, parsed, this.identity.participantId);
      // The archives first, then the event that names them: one transaction.
      for (const p of decision.newPackages) await this.packages.writeArchive(tx.db, p.info.packageId, p.payload);
      if (decision.events.length) await tx.append(decision.events);
    });
    // The new packages are decoded for the engine in the background: the first command using them finds them ready.
    void this.interpreter.warm(parsed.packages.map((p) => p.info.packageId));
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
    resolvePackageSynchronizer(synchronizerId, this.identity.synchronizers.map((s) => s.id));
    const parsed = await inspectDar(await dar(), { maxUncompressedBytes: this.runtime.config.darMaxUncompressedBytes });
    checkDarDependencies(parsed, await this.packages.stored(this.runtime.db, darPackageIdsToLookUp(parsed)));
  }
}

@CommandHandler(UpdateVettedPackagesCommand)
export class UpdateVettedPackagesHandler implements ICommandHandler<UpdateVettedPackagesCommand> {
  constructor(
    private readonly store: EventStore,
    private readonly identity: ParticipantIdentity,
    private readonly packages: PackagesRepository,
  ) {}

  async execute({ claims, request: decode }: UpdateVettedPackagesCommand): Promise<{ past: VettedPackagesEntry | null; next: VettedPackagesEntry }> {
    requireParticipantAdmin(claims);
    const request = decode();
    validatePackageSynchronizerId(request.synchronizerId);
    const synchronizerId = resolvePackageSynchronizer(request.synchronizerId, this.identity.synchronizers.map((s) => s.id));
    const participantId = this.identity.participantId;
    return this.store.execute(async (tx) => {
      const [state] = await this.packages.vetting(tx.db, [synchronizerId]);
      const all = await this.packages.all(tx.db);
      const decision = decideVettingUpdate(state, all, request, participantId);
      if (decision.events.length) await tx.append(decision.events);
      const byId = new Map(all.map((p) => [p.packageId, p]));
      return { past: decision.past && vettingEntry(decision.past, byId, participantId), next: vettingEntry(decision.next, byId, participantId) };
    });
  }
}
