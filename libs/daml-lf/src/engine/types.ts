/** The engine's commands, context, questions and results (Canton `engine/…/Result.scala`). */
import type { DamlTransaction, Value } from '@canton-network/core-ledger-proto';
import type { Package, PackageId, TypeConId } from '../language/ast';
import type { SValue } from '../interpreter/values';
import type { EngineError } from './errors';

/** An argument as the API received it: JSON (JSON Ledger API), a proto Value (gRPC), or already typed. */
export type CommandArgument = { readonly json: unknown } | { readonly proto: Value } | { readonly value: SValue };

export type EngineCommand =
  | { readonly kind: 'create'; readonly templateId: TypeConId; readonly argument: CommandArgument }
  | {
      readonly kind: 'exercise';
      readonly templateId: TypeConId;
      readonly contractId: string;
      readonly choice: string;
      readonly argument: CommandArgument;
    }
  | {
      readonly kind: 'createAndExercise';
      readonly templateId: TypeConId;
      readonly createArgument: CommandArgument;
      readonly choice: string;
      readonly choiceArgument: CommandArgument;
    };

export interface SubmitContext {
  readonly actAs: readonly string[];
  readonly readAs: readonly string[];
  /** 32 random bytes. */
  readonly submissionSeed: Uint8Array;
  readonly participantId: string;
  /** µs since the epoch: preparation/submission time; contract ids commit to it. */
  readonly preparationTime: bigint;
  /** µs: the ledger effective time if already chosen; else `getTime` asks (`needTime`). */
  readonly ledgerTime?: bigint;
  /** Record ids and labels in node values (prepared transactions); default true. */
  readonly enrichValues?: boolean;
  /**
   * Refuse contract ids without a suffix (`00` ‖ discriminator alone) in the commands: exercised ids and ids inside
   * arguments (Canton's `EngineConfig.forbidLocalContractIds`, on for a participant's submissions); default false.
   */
  readonly forbidLocalContractIds?: boolean;
  /** Unsuffixed ids `forbidLocalContractIds` still accepts: contracts a ledger committed before it suffixed ids. */
  readonly storedLocalContractIds?: ReadonlySet<string>;
  /** Bound on interpreter steps (INTERPRETATION_TIME_EXCEEDED); default 50 million. */
  readonly maxSteps?: number;
  /** Bound on the bytes the interpretation builds (estimated; INTERPRETATION_TIME_EXCEEDED); default 256 MiB. */
  readonly maxMemoryBytes?: number;
  /** Receives the TRACE messages of the interpretation as they happen (Canton logs them at debug level). */
  readonly onTrace?: (message: string) => void;
  /**
   * The engine stops with `interrupted` after every this many steps, so the caller can look at the clock (and give way to
   * other work) before resuming (Canton's `ResultInterruption`); default never.
   */
  readonly stepsBetweenInterruptions?: number;
  /** Counts the interpreter steps the submission runs (added to `steps` whenever the machine stops). */
  readonly stepMeter?: { steps: number };
}

/** A contract the ledger knows, as the pipeline answers `needContract`. */
export interface ContractInstance {
  readonly contractId: string;
  readonly templateId: TypeConId;
  readonly packageName: string;
  /** The create argument (labelled or not). */
  readonly argument: Value;
  readonly signatories: readonly string[];
  readonly stakeholders: readonly string[];
  /** µs. */
  readonly createdAt: bigint;
}

export interface TransactionMetadata {
  readonly transactionSeed: Buffer;
  readonly preparationTime: bigint;
  /** Node id → seed (creates and exercises). */
  readonly nodeSeeds: readonly { readonly nodeId: number; readonly seed: Buffer }[];
  /** Packages whose templates the transaction used, sorted. */
  readonly usedPackages: readonly PackageId[];
  /** Ledger contracts the transaction read (exercised or fetched), in first-use order. */
  readonly inputContracts: readonly ContractInstance[];
  /** Ledger time bounds (µs, inclusive) the transaction's time reads impose; absent = unconstrained. */
  readonly ledgerTimeBounds: { readonly min?: bigint; readonly max?: bigint };
  /** Whether the transaction read the ledger time (getTime or a comparison). */
  readonly dependsOnTime: boolean;
}

export interface CreatedContract {
  readonly contractId: string;
  readonly templateId: TypeConId;
  readonly argument: SValue;
  readonly signatories: readonly string[];
  readonly observers: readonly string[];
}

export type EngineResult =
  | {
      readonly tag: 'done';
      readonly transaction: DamlTransaction;
      readonly metadata: TransactionMetadata;
      readonly results: readonly SValue[];
    }
  | { readonly tag: 'error'; readonly error: EngineError }
  | {
      readonly tag: 'needPackage';
      readonly packageId: PackageId;
      readonly resume: (pkg: Package | undefined) => EngineResult;
    }
  | {
      readonly tag: 'needContract';
      readonly contractId: string;
      readonly resume: (contract: ContractInstance | undefined) => EngineResult;
    }
  | { readonly tag: 'needTime'; readonly resume: (ledgerTime: bigint) => EngineResult }
  | { readonly tag: 'interrupted'; readonly resume: () => EngineResult };

export type Question =
  | { readonly tag: 'needPackage'; readonly packageId: PackageId }
  | { readonly tag: 'needContract'; readonly contractId: string }
  | { readonly tag: 'needTime' };
