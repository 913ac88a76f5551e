import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import type { Package } from '@ledgerline/daml-lf';
import {
  checkDarDependencies,
  checkUpgrades,
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
 * The upgrade checks of vetting the DAR's packages on `synchronizerId` (Canton's PackageUpgradeValidator): the DAR's
 * packages beside the packages of the same names vetted there, with every package their types refer to decoded.
 */
async function checkUpgradesOfDar(
  parsed: ParsedDar,
  synchronizerId: string,
  packages: PackagesRepository,
  runtime: LedgerRuntime,
  interpreter: CommandInterpreter,
): Promise<void> {
  const [vetting] = await packages.vetting(runtime.db, [synchronizerId]);
  const vetted = new Set((vetting?.packages ?? []).map((p) => p.packageId));
  const inDar = new Map(parsed.packages.flatMap((p) => (p.decoded ? [[p.info.packageId, p.decoded] as const] : [])));
  const names = [...new Set(parsed.packages.map((p) => p.info.name))];
  const storedVetted = (await packages.byNames(runtime.db, names)).filter(
    (p) => vetted.has(p.packageId) && !inDar.has(p.packageId),
  );
  if (storedVetted.length === 0) return;
  const loaded = new Map<string, Package>();
  const load = async (id: string) => {
    if (inDar.has(id) || loaded.has(id)) return;
    const pkg = await interpreter.storedPackage(id);
    if (pkg) loaded.set(id, pkg);
  };
  for (const p of storedVetted) await load(p.packageId);
  for (const pkg of [...loaded.values(), ...inDar.values()]) for (const id of pkg.imports) await load(id);
  const decoded = (id: string) => inDar.get(id) ?? loaded.get(id);
  const target = [
    ...parsed.packages.map((p) => ({ ...p.info, decoded: p.decoded })),
    ...storedVetted.map((p) => ({ ...p, decoded: decoded(p.packageId) })),
  ].flatMap((p) =>
    p.decoded ? [{ packageId: p.packageId, name: p.name, version: p.version, decoded: p.decoded }] : [],
  );
  checkUpgrades(new Set(parsed.packages.map((p) => p.info.packageId).filter((id) => !vetted.has(id))), target, decoded);
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
    if (vetOn) await checkUpgradesOfDar(parsed, vetOn, this.packages, this.runtime, this.interpreter);
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
    const validateOn = resolvePackageSynchronizer(
      synchronizerId,
      this.identity.synchronizers.map((s) => s.id),
    );
    const parsed = await inspectDar(await dar(), { maxUncompressedBytes: this.runtime.config.darMaxUncompressedBytes });
    checkDarDependencies(parsed, await this.packages.stored(this.runtime.db, darPackageIdsToLookUp(parsed)));
    await validateUploadedDar(parsed, this.packages, this.runtime, this.interpreter);
    await checkUpgradesOfDar(parsed, validateOn, this.packages, this.runtime, this.interpreter);
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
