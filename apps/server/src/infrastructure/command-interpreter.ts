import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import {
  interpretCommands,
  interpretationTimeLimitExceeded,
  interpretationTimeLimitPassed,
  type InterpretRequest,
  type BuildState,
  type InterpretEnvironment,
  type InterpretedTransaction,
  type StoredContract,
} from '@ledgerline/domain';
import { decodeArchivePayload, Engine, type Package } from '@ledgerline/daml-lf';
import { ContractsRepository, PackagesRepository } from '@ledgerline/store';
import { LedgerRuntime } from './runtime';

/** Engine steps between two looks at the clock (Canton's default `iterationsBetweenInterruptions`). */
const STEPS_BETWEEN_INTERRUPTIONS = 10_000;

/**
 * The process's Daml engine and its decoded packages, and the loop that answers the engine's questions from the store:
 * a package by id (its archive payload, decoded once per process), a contract by id (the contracts projection). The
 * decision between the engine and the generic model is `interpretCommands`' (libs/domain).
 *
 * The engine is synchronous; it stops every few thousand steps, and the loop then aborts the interpretation once the
 * ledger's clock passes the ledger effective time plus LEDGER_INTERPRETATION_TIMEOUT_MS (INTERPRETATION_TIME_EXCEEDED,
 * as Canton's `StoreBackedCommandInterpreter`), or else lets other requests run before resuming it. The engine itself
 * aborts after LEDGER_INTERPRETATION_MAX_STEPS steps.
 */
@Injectable()
export class CommandInterpreter implements OnApplicationBootstrap {
  private readonly log = new Logger('CommandInterpreter');
  readonly engine = new Engine();
  private readonly refused = new Set<string>();
  /** Packages being read and decoded now: a second caller waits for the same decoding. */
  private readonly loading = new Map<string, Promise<Package | undefined>>();

  constructor(
    private readonly contracts: ContractsRepository,
    private readonly packageRepository: PackagesRepository,
    private readonly runtime: LedgerRuntime,
  ) {}

  /** Decodes the stored packages in the background once the server runs, so the first command after a restart pays nothing. */
  onApplicationBootstrap(): void {
    void this.warmAll().catch((e: Error) => this.log.warn(`warming the package cache failed: ${e.message}`));
  }

  /**
   * `env.ledgerTime` (default `env.now`) is the ledger effective time the commands run at. Contracts the engine asks for
   * that `state` lacks come from `lookup` (default: the contracts projection now; a dry run reads them at its offset).
   */
  async interpret(
    req: InterpretRequest,
    state: BuildState,
    env: Omit<InterpretEnvironment, 'engine' | 'participantId'>,
    lookup: (contractId: string) => Promise<StoredContract | null> = (id) => this.contracts.get(this.runtime.db, id),
  ): Promise<InterpretedTransaction> {
    const cfg = this.runtime.config;
    const ledgerTime = env.ledgerTime ?? env.now;
    const toleranceMicros = BigInt(cfg.interpretationTimeoutMs) * 1000n;
    let step = interpretCommands(req, state, {
      ...env,
      ledgerTime,
      maxSteps: cfg.interpretationMaxSteps,
      maxMemoryBytes: cfg.interpretationMaxMemoryMb * 1024 * 1024,
      stepsBetweenInterruptions: STEPS_BETWEEN_INTERRUPTIONS,
      engine: this.engine,
      participantId: this.runtime.identity.participantId,
    });
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
          step = step.resume(state.contracts.get(step.contractId) ?? (await lookup(step.contractId)) ?? undefined);
          break;
        case 'interrupted': {
          if (interpretationTimeLimitPassed(ledgerTime, toleranceMicros, this.runtime.clock.nowMicros()))
            throw interpretationTimeLimitExceeded(ledgerTime, toleranceMicros);
          const resume = step.resume;
          await new Promise((r) => setImmediate(r));
          step = resume();
          break;
        }
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

  /** Packages an upload has just decoded and stored: the engine takes them as they are (ids are content hashes). */
  addDecoded(packages: readonly Package[]): void {
    for (const pkg of packages) this.engine.addPackage(pkg);
  }

  /** A stored package, decoded (once per process); undefined when it is not stored or does not decode. */
  storedPackage(id: string): Promise<Package | undefined> {
    return this.loadPackage(id).catch((e: Error) => this.undecodable(id, e));
  }

  /** Every stored package, decoded. */
  async warmAll(): Promise<void> {
    await this.warm(await this.packageRepository.ids(this.runtime.db));
  }

  /** Stored package `id` decoded (once per process), or undefined when no package has it or the decoder refuses it. */
  decoded(id: string): Promise<Package | undefined> {
    if (this.refused.has(id)) return Promise.resolve(undefined);
    return this.loadPackage(id).catch((e: Error) => this.undecodable(id, e));
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
