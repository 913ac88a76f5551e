export * from './templates';
export * from './dev-config';
export * from './rounds';
export * from './preapprovals';
export * from './splice-contracts';
