import { Injectable } from '@nestjs/common';
import {
  catalogTemplateDirectory,
  packageTemplateDirectory,
  templateRefsOf,
  validatePackageIdSelectionPreference,
  type PackageDirectory,
  type TemplateDirectory,
  type TransactionCommand,
} from '@ledgerline/domain';
import { packageDirectoryOf } from '@ledgerline/store';
import { LedgerRuntime } from './runtime';

/**
 * The template directory commands are built with: the generic model's (the template catalog), with the package store's
 * packages resolving `#name` and package ids where they are stored; strict with LEDGER_STRICT_PACKAGES.
 */
@Injectable()
export class TemplateDirectories {
  private readonly catalog: TemplateDirectory;
  private readonly packages: PackageDirectory;

  constructor(private readonly runtime: LedgerRuntime) {
    this.catalog = catalogTemplateDirectory(runtime.config.templateCatalog);
    this.packages = packageDirectoryOf(runtime.db);
  }

  /**
   * A directory for `commands`, submitted to `synchronizerId` ('' = any connected synchronizer), with the submission's
   * `packageIdSelectionPreference`.
   */
  forCommands(
    commands: readonly TransactionCommand[],
    synchronizerId: string,
    preference: readonly string[] = [],
  ): Promise<TemplateDirectory> {
    return packageTemplateDirectory(this.catalog, this.packages, templateRefsOf(commands), {
      strict: this.runtime.config.strictPackages,
      synchronizerId,
      preference,
      connectedSynchronizers: this.runtime.identity.synchronizers.map((s) => s.id),
      nowMicros: this.runtime.clock.nowMicros(),
    });
  }

  /** The commands' validation of `packageIdSelectionPreference` (every id stored, one per package name). */
  async validatePreference(preference: readonly string[]): Promise<void> {
    if (preference.length === 0) return;
    validatePackageIdSelectionPreference(preference, await this.packages.packagesFor(preference, []));
  }
}
