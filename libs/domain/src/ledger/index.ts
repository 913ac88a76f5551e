export * from './events';
export * from './time';
export * from './clock';
export * from './updates';
