export * from './token-rules';
export * from './key-resolver';
export * from './claims-resolver';
export * from './jwt.strategy';
export * from './ledger-auth.guard';
export * from './current-claims.decorator';
export * from './mint-token';
export * from './header-decode-error';
