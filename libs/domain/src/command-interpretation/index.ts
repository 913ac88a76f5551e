export * from './interpret-commands';
export * from './interpretation-budget';
