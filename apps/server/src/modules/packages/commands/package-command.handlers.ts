import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import type { Package } from '@ledgerline/daml-lf';
import {
  checkDarDependencies,
  checkUpgrades,
  decideVettingUpdate,
  darExternalReferences,
  darPackageIdsToLookUp,
  inspectDar,
  validateDar,
  type ParsedDar,
  type VettingState,
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
 * The upgrade checks of a next vetting state (Canton's PackageUpgradeValidator): `target` (every package the state
 * vets: id, name, version) with `newIds` among them; `known` holds packages already decoded (a DAR's). The packages of
 * the new packages' names, and every package their types refer to, are decoded from the store.
 */
async function checkUpgradesOfTarget(
  target: ReadonlyArray<{ packageId: string; name: string; version: string }>,
  newIds: ReadonlySet<string>,
  known: ReadonlyMap<string, Package>,
  interpreter: CommandInterpreter,
): Promise<void> {
  const names = new Set(target.filter((p) => newIds.has(p.packageId)).map((p) => p.name));
  const lineages = target.filter((p) => names.has(p.name));
  const loaded = new Map<string, Package>();
  const load = async (id: string) => {
    if (known.has(id) || loaded.has(id)) return;
    const pkg = await interpreter.storedPackage(id);
    if (pkg) loaded.set(id, pkg);
  };
  for (const p of lineages) await load(p.packageId);
  const decoded = (id: string) => known.get(id) ?? loaded.get(id);
  for (const p of lineages) for (const id of decoded(p.packageId)?.imports ?? []) await load(id);
  checkUpgrades(
    newIds,
    lineages.flatMap((p) => {
      const pkg = decoded(p.packageId);
      return pkg ? [{ packageId: p.packageId, name: p.name, version: p.version, decoded: pkg }] : [];
    }),
    decoded,
  );
}

/** The upgrade checks of vetting the DAR's packages on `synchronizerId`, beside the packages vetted there. */
async function checkUpgradesOfDar(
  parsed: ParsedDar,
  synchronizerId: string,
  packages: PackagesRepository,
  runtime: LedgerRuntime,
  interpreter: CommandInterpreter,
): Promise<void> {
  const [vetting] = await packages.vetting(runtime.db, [synchronizerId]);
  const vetted = new Set(vetting.packages.map((p) => p.packageId));
  const inDar = new Map(parsed.packages.flatMap((p) => (p.decoded ? [[p.info.packageId, p.decoded] as const] : [])));
  const names = [...new Set(parsed.packages.map((p) => p.info.name))];
  const storedVetted = (await packages.byNames(runtime.db, names)).filter(
    (p) => vetted.has(p.packageId) && !inDar.has(p.packageId),
  );
  if (storedVetted.length === 0 && new Set(parsed.packages.map((p) => p.info.name)).size === parsed.packages.length)
    return;
  await checkUpgradesOfTarget(
    [...parsed.packages.map((p) => p.info), ...storedVetted],
    new Set(parsed.packages.map((p) => p.info.packageId).filter((id) => !vetted.has(id))),
    inDar,
    interpreter,
  );
}

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
    private readonly runtime: LedgerRuntime,
    private readonly packages: PackagesRepository,
    private readonly interpreter: CommandInterpreter,
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
    // The upgrade checks of the state the change leads to (the decider decides it again, and refuses what it refuses).
    const [vetting] = await this.packages.vetting(this.runtime.db, [synchronizerId]);
    const stored = await this.packages.all(this.runtime.db);
    let next: VettingState | null;
    try {
      next = decideVettingUpdate(vetting, stored, request, this.identity.participantId).next;
    } catch {
      next = null; // the decider refuses it with its own error
    }
    if (next) {
      const before = new Set(vetting.packages.map((p) => p.packageId));
      const byId = new Map(stored.map((p) => [p.packageId, p]));
      const target = next.packages.flatMap((p) => (byId.has(p.packageId) ? [byId.get(p.packageId)!] : []));
      const newIds = new Set(target.map((p) => p.packageId).filter((id) => !before.has(id)));
      if (newIds.size) await checkUpgradesOfTarget(target, newIds, new Map(), this.interpreter);
    }
    return this.store.decide(vettingUpdateDecider, {
      synchronizerId,
      request,
      participantId: this.identity.participantId,
    });
  }
}
