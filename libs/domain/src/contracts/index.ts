export * from './active-contracts';
export * from './contract-lookups';
