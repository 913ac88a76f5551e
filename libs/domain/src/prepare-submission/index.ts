export * from './prepare-errors';
export * from './prepare-rules';
