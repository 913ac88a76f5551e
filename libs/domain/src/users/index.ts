export * from './events';
export * from './user-rules';
