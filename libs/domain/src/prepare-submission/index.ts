export * from './template-id';
export * from './template-catalog';
export * from './prepare-errors';
export * from './prepare-rules';
