export * from './party-rules';
export * from './events';
export * from './party-details';
export * from './party-errors';
export * from './party-decide';
export * from './party-authorization';
export * from './self-allocation-quota';
