import { Readable } from 'node:stream';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import {
  choosePreferredPackages,
  listVettedPackages,
  packageNotFound,
  requirePackageId,
  validatePreferredPackagesRequest,
  validateVettingList,
  type PreferredPackages,
} from '@ledgerline/domain';
import { packageDefinitions, packageSummary, type Package, type PackageDefinitions } from '@ledgerline/daml-lf';
import { PackagesRepository } from '@ledgerline/store';
import { parseVettingPageToken, vettedPackagesToJs, vettingPageToken } from '@ledgerline/wire';
import { CommandInterpreter } from '../../../infrastructure/command-interpreter';
import { LedgerRuntime } from '../../../infrastructure/runtime';
import { ParticipantIdentity } from '../../../infrastructure/participant-identity';
import {
  GetPackageQuery,
  GetPackageDefinitionsQuery,
  GetPackageStatusQuery,
  GetPreferredPackagesQuery,
  ListPackageDefinitionsQuery,
  ListPackagesQuery,
  ListVettedPackagesQuery,
} from './package.queries';

/** Most VettedPackages entries per page (there is one per synchronizer). */
export const MAX_VETTED_PACKAGES_PAGE_SIZE = 1000;

/** Reads of the package store: any authenticated user (the global guard has checked the token). */
@QueryHandler(ListPackagesQuery)
export class ListPackagesHandler implements IQueryHandler<ListPackagesQuery> {
  constructor(
    private readonly runtime: LedgerRuntime,
    private readonly packages: PackagesRepository,
  ) {}

  async execute(): Promise<string[]> {
    return this.packages.ids(this.runtime.db);
  }
}

@QueryHandler(GetPackageQuery)
export class GetPackageHandler implements IQueryHandler<GetPackageQuery> {
  constructor(
    private readonly runtime: LedgerRuntime,
    private readonly packages: PackagesRepository,
  ) {}

  /** The archive payload as a stream of its stored chunks, with its size. */
  async execute({ packageId }: GetPackageQuery): Promise<{ packageId: string; sizeBytes: number; body: Readable }> {
    requirePackageId(packageId);
    const info = await this.packages.get(this.runtime.db, packageId);
    if (!info) throw packageNotFound(packageId);
    return {
      packageId,
      sizeBytes: info.sizeBytes,
      body: Readable.from(this.packages.archiveChunks(this.runtime.db, packageId), { objectMode: false }),
    };
  }
}

@QueryHandler(GetPackageStatusQuery)
export class GetPackageStatusHandler implements IQueryHandler<GetPackageStatusQuery> {
  constructor(
    private readonly runtime: LedgerRuntime,
    private readonly packages: PackagesRepository,
  ) {}

  async execute({ packageId }: GetPackageStatusQuery): Promise<boolean> {
    requirePackageId(packageId);
    return (await this.packages.stored(this.runtime.db, [packageId])).has(packageId);
  }
}

@QueryHandler(ListVettedPackagesQuery)
export class ListVettedPackagesHandler implements IQueryHandler<ListVettedPackagesQuery> {
  constructor(
    private readonly runtime: LedgerRuntime,
    private readonly identity: ParticipantIdentity,
    private readonly packages: PackagesRepository,
  ) {}

  async execute({ filter, pageToken, pageSize }: ListVettedPackagesQuery) {
    validateVettingList(filter, pageSize, MAX_VETTED_PACKAGES_PAGE_SIZE);
    const after = parseVettingPageToken(pageToken);
    const [states, all] = await Promise.all([
      this.packages.vetting(
        this.runtime.db,
        this.identity.synchronizers.map((s) => s.id),
      ),
      this.packages.all(this.runtime.db),
    ]);
    const { entries, more } = listVettedPackages(
      states,
      new Map(all.map((p) => [p.packageId, p])),
      this.identity.participantId,
      filter,
      {
        after,
        size: pageSize || MAX_VETTED_PACKAGES_PAGE_SIZE,
      },
    );
    return {
      vettedPackages: entries.map(vettedPackagesToJs),
      nextPageToken: more ? vettingPageToken(entries[entries.length - 1]) : '',
    };
  }
}

@QueryHandler(GetPreferredPackagesQuery)
export class GetPreferredPackagesHandler implements IQueryHandler<GetPreferredPackagesQuery> {
  constructor(
    private readonly runtime: LedgerRuntime,
    private readonly identity: ParticipantIdentity,
    private readonly packages: PackagesRepository,
  ) {}

  async execute({ request }: GetPreferredPackagesQuery): Promise<PreferredPackages | null> {
    validatePreferredPackagesRequest(request);
    const [stored, states] = await Promise.all([
      this.packages.byNames(
        this.runtime.db,
        request.requirements.map((r) => r.packageName),
      ),
      this.packages.vetting(
        this.runtime.db,
        this.identity.synchronizers.map((s) => s.id),
      ),
    ]);
    return choosePreferredPackages(stored, states, request, this.runtime.clock.nowMicros());
  }
}

/** A stored package's summary; `decoded: false` when the Daml-LF decoder refuses it (then its contents are not shown). */
export interface PackageDefinitionsSummary {
  packageId: string;
  name: string;
  version: string;
  languageVersion: string;
  templates: number;
  interfaces: number;
  decoded: boolean;
}

@QueryHandler(ListPackageDefinitionsQuery)
export class ListPackageDefinitionsHandler implements IQueryHandler<ListPackageDefinitionsQuery> {
  constructor(
    private readonly runtime: LedgerRuntime,
    private readonly packages: PackagesRepository,
    private readonly interpreter: CommandInterpreter,
  ) {}

  async execute(): Promise<{ packages: PackageDefinitionsSummary[] }> {
    const all = await this.packages.all(this.runtime.db);
    const packages: PackageDefinitionsSummary[] = [];
    for (const info of all) {
      const pkg = await this.interpreter.decoded(info.packageId);
      packages.push(
        pkg
          ? { ...packageSummary(pkg), decoded: true }
          : {
              packageId: info.packageId,
              name: info.name,
              version: info.version,
              languageVersion: info.lfVersion,
              templates: 0,
              interfaces: 0,
              decoded: false,
            },
      );
    }
    packages.sort(
      (a, b) =>
        a.name.localeCompare(b.name) || a.version.localeCompare(b.version) || a.packageId.localeCompare(b.packageId),
    );
    return { packages };
  }
}

@QueryHandler(GetPackageDefinitionsQuery)
export class GetPackageDefinitionsHandler implements IQueryHandler<GetPackageDefinitionsQuery> {
  constructor(
    private readonly runtime: LedgerRuntime,
    private readonly packages: PackagesRepository,
    private readonly interpreter: CommandInterpreter,
  ) {}

  async execute({ packageId }: GetPackageDefinitionsQuery): Promise<PackageDefinitions & { decoded: boolean }> {
    requirePackageId(packageId);
    const info = await this.packages.get(this.runtime.db, packageId);
    if (!info) throw packageNotFound(packageId);
    const pkg = await this.interpreter.decoded(packageId);
    if (!pkg)
      return {
        packageId,
        name: info.name,
        version: info.version,
        languageVersion: info.lfVersion,
        modules: [],
        decoded: false,
      };
    // The data types of its imports (argument records, examples), transitively.
    const loaded = new Map<string, Package>([[pkg.id, pkg]]);
    const queue = [...pkg.imports];
    while (queue.length > 0) {
      const id = queue.pop()!;
      if (loaded.has(id)) continue;
      const dep = await this.interpreter.decoded(id);
      if (!dep) continue;
      loaded.set(id, dep);
      queue.push(...dep.imports);
    }
    return { ...packageDefinitions(pkg, (id) => loaded.get(id)), decoded: true };
  }
}
