import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { interpretCommands, type BuildRequest, type BuildState, type BuiltTransaction, type InterpretEnvironment } from '@ledgerline/domain';
import { decodeArchivePayload, Engine, type Package } from '@ledgerline/daml-lf';
import { ContractLookupRepository, PackagesRepository } from '@ledgerline/store';
import { LedgerRuntime } from './runtime';

/**
 * The process's Daml engine and its decoded packages, and the loop that answers the engine's questions from the store:
 * a package by id (its archive payload, decoded once per process), a contract by id (the contracts projection). The
 * decision between the engine and the generic model is `interpretCommands`' (libs/domain).
 */
@Injectable()
export class CommandInterpreter implements OnApplicationBootstrap {
  private readonly log = new Logger('CommandInterpreter');
  readonly engine = new Engine();
  private readonly packageRepository = new PackagesRepository();
  private readonly contracts = new ContractLookupRepository();
  private readonly refused = new Set<string>();
  /** Packages being read and decoded now: a second caller waits for the same decoding. */
  private readonly loading = new Map<string, Promise<Package | undefined>>();

  constructor(private readonly runtime: LedgerRuntime) {}

  /** Decodes the stored packages in the background once the server runs, so the first command after a restart pays nothing. */
  onApplicationBootstrap(): void {
    void this.warmAll().catch((e: Error) => this.log.warn(`warming the package cache failed: ${e.message}`));
  }

  async interpret(req: BuildRequest, state: BuildState, env: Omit<InterpretEnvironment, 'engine' | 'participantId'>): Promise<BuiltTransaction> {
    let step = interpretCommands(req, state, { ...env, engine: this.engine, participantId: this.runtime.identity.participantId });
    for (;;) {
      switch (step.tag) {
        case 'built':
          return step.built;
        case 'needPackage': {
          const id = step.packageId;
          step = step.resume(await this.loadPackage(id).catch((e: Error) => this.undecodable(id, e)));
          break;
        }
        case 'needContract':
          step = step.resume(state.contracts.get(step.contractId) ?? (await this.contracts.get(this.runtime.db, step.contractId)) ?? undefined);
          break;
      }
    }
  }

  /**
   * Decodes the stored packages with these ids that are not decoded yet (after an upload, and for every stored package
   * at start-up, in the background), so that no command pays the decoding.
   */
  async warm(packageIds: readonly string[]): Promise<void> {
    for (const id of packageIds) {
      if (this.engine.packages.has(id) || this.refused.has(id)) continue;
      await this.loadPackage(id).catch((e: Error) => this.undecodable(id, e));
      // Let requests run between packages.
      await new Promise((r) => setImmediate(r));
    }
  }

  /** Every stored package, decoded. */
  async warmAll(): Promise<void> {
    await this.warm(await this.packageRepository.ids(this.runtime.db));
  }

  /** A stored package the decoder refuses: the engine cannot run it (its templates keep the generic model). */
  private undecodable(id: string, e: Error): undefined {
    if (!this.refused.has(id)) this.log.warn(`package ${id} cannot run on the Daml engine: ${e.message}`);
    this.refused.add(id);
    return undefined;
  }

  private loadPackage(id: string): Promise<Package | undefined> {
    const cached = this.engine.packages.getPackage(id);
    if (cached) return Promise.resolve(cached);
    let p = this.loading.get(id);
    if (!p) {
      p = this.readPackage(id).finally(() => this.loading.delete(id));
      this.loading.set(id, p);
    }
    return p;
  }

  private async readPackage(id: string): Promise<Package | undefined> {
    const chunks: Buffer[] = [];
    for await (const c of this.packageRepository.archiveChunks(this.runtime.db, id)) chunks.push(c);
    if (chunks.length === 0) return undefined;
    const pkg = decodeArchivePayload(Buffer.concat(chunks), id);
    this.engine.addPackage(pkg);
    return pkg;
  }
}
