export * from './errors';
export * from './auth';
export * from './ledger';
export * from './users';
export * from './parties';
export * from './identity-providers';
export * from './ledger-model';
export * from './execute-submission';
