export * from './errors';
export * from './auth';
export * from './ledger';
export * from './users';
export * from './updates';
