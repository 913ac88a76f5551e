export * from './events';
export * from './time';
export * from './updates';
