import { Injectable } from '@nestjs/common';
import {
  catalogInterfaces,
  firstKnowing,
  hasInterfaceFilters,
  NO_INTERFACES,
  packageInterfaces,
  type EventFormat,
  type InterfaceDirectory,
  type UpdateFormat,
} from '@ledgerline/domain';
import { CommandInterpreter } from './command-interpreter';
import { LedgerRuntime } from './runtime';

/**
 * The interfaces read paths match interface filters with and render views from: the stored packages' interface
 * instances, evaluated by the engine of the CommandInterpreter (its decoded packages), and for templates of no stored
 * package the template catalog's declarations.
 */
@Injectable()
export class InterfaceDirectories {
  private readonly directory: InterfaceDirectory;

  constructor(
    runtime: LedgerRuntime,
    private readonly interpreter: CommandInterpreter,
  ) {
    this.directory = firstKnowing(
      packageInterfaces(interpreter.engine),
      catalogInterfaces(runtime.config.templateCatalog),
    );
  }

  /**
   * The directory a read in `format` needs: none without interface filters; with them, the directory once every stored
   * package is decoded (uploads, and other instances' uploads, included).
   */
  /** The directory once every stored package is decoded (for reads that evaluate views themselves). */
  async warmed(): Promise<InterfaceDirectory> {
    await this.interpreter.warmAll();
    return this.directory;
  }

  async forFormat(format: EventFormat | UpdateFormat | null | undefined): Promise<InterfaceDirectory> {
    if (!hasInterfaceFilters(format)) return NO_INTERFACES;
    await this.interpreter.warmAll();
    return this.directory;
  }
}
