export * from './rights';
export * from './requirements';
