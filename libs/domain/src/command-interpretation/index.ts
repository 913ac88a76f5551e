export * from './disclosed-contracts';
export * from './interpret-commands';
