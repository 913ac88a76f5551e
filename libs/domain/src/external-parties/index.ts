export * from './events';
export * from './external-party-rules';
export * from './jwks';
