export * from './disclosed-contracts';
export * from './interpret-commands';
export * from './interpretation-budget';
