export * from './cost-estimation';
export * from './prepare-errors';
export * from './prepare-rules';
