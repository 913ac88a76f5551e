export * from './error-category';
export * from './ledger-error';
