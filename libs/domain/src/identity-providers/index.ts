export * from './idp-rules';
