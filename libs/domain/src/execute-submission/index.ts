/** executeAndWait / execute: request validation and external-signature verification (the ledger model is in ../ledger-model). */
export * from './request-validation';
export * from './external-signatures';
