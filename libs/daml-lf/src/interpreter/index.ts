/** The interpreter room: compiled packages, the machine, runtime values and the builtins. */
import type { Expr } from '../language/ast';
import { Compiler } from './compiler';
import { Machine, type MachineOptions, type RunResult } from './machine';
import { CompiledPackages } from './packages';
import { Failure } from './errors';

export { Compiler } from './compiler';
export { Machine, type MachineOptions, type RunResult, type Suspension, type UpdateEffects } from './machine';
export { CompiledPackages } from './packages';
export { BUILTINS } from './builtins';
export { ARITHMETIC_ERROR, type InterpretationError } from './errors';
export * as numeric from './numeric';
export * as lfText from './text';
export * as lfTime from './time';
export type { SValue, SRecord, Cons } from './values';
export { compareValues, equalValues, listFromArray, listToArray, typeKey } from './values';
export { mapEntries, mapFromEntries, mapSize, type MapTree } from './smap';
/** Runtime value constructors and helpers (UNIT, TRUE, int64, text, some …), namespaced to keep the root tidy. */
export * as runtime from './values';

/** An interpreter over a set of packages: one compiler and cache, machines per evaluation. */
export class Interpreter {
  readonly compiler: Compiler;
  constructor(readonly packages: CompiledPackages = new CompiledPackages()) {
    this.compiler = new Compiler(packages);
  }

  machine(options: MachineOptions = {}): Machine {
    return new Machine(this.packages, this.compiler, options);
  }

  /** Evaluates a closed expression purely (no update effects). Never throws for Daml-level failures. */
  evaluate(e: Expr, options: MachineOptions = {}): RunResult {
    const m = this.machine(options);
    try {
      return m.start(this.compiler.compile(e)).run();
    } catch (err) {
      if (err instanceof Failure) return { tag: 'error', error: err.error };
      return { tag: 'error', error: { tag: 'Internal', message: err instanceof Error ? err.message : String(err) } };
    }
  }
}
