/**
 * The ledger model: how an externally prepared transaction is checked like a Daml ledger checks it, without running Daml.
 * One file per rule family — well-formedness, authorization, consistency, time bounds, deduplication — and
 * `contract-id-suffixing` and `transaction-effects` for the committed result. `decideTransaction` runs them in order on state the caller read.
 */
export * from './errors';
export * from './well-formedness';
export * from './authorization';
export * from './consistency';
export * from './time-bounds';
export * from './deduplication';
export * from './transaction-effects';
export * from './contract-id-suffixing';
export * from './decide-transaction';
export * from './routing';
