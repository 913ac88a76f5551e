export * from './events';
export * from './user-rules';
export * from './user-update';
export * from './user-authorization';
