export * from './events';
export * from './ledger-event';
export * from './time';
export * from './clock';
export * from './updates';
